package io.hotkey.agent.instrument.jedis.v3_0;

import io.hotkey.agent.core.ServedReply;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * On Jedis 3's {@code Connection.readProtocolWithCheckingBroken()}, where every typed reply getter
 * reads: returns the local answer of a command that was not sent instead of reading, else reports
 * the reply read (pipelined and transactional ones included).
 */
public final class Jedis3ReplyReadAdvice {
  private Jedis3ReplyReadAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static ServedReply onEnter(@Advice.This Object connection) {
    return Jedis3Calls.servedReply(connection);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter ServedReply served,
      @Advice.This Object connection,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object reply,
      @Advice.Thrown Throwable thrown) {
    if (served != null) {
      reply = served.raw;
    } else {
      Jedis3Calls.replyRead(connection, reply, thrown);
    }
  }
}
