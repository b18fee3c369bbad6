package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ServedReply;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import redis.clients.jedis.CommandObject;

/**
 * On {@code Connection.executeCommand(CommandObject)}, the synchronous path of the classic {@code
 * Jedis} API (and, inside them, of the pooled clients). A locally served read skips the method
 * ({@link JedisCommands#beginRead}). Pipelines and transactions never come here.
 */
public final class JedisExecuteCommandAdvice {
  private JedisExecuteCommandAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static ServedReply onEnter(
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) CommandObject<?> command) {
    return JedisCommands.beginRead(
        connection, socket != null ? socket : ConnectionState.NOT_CONNECTED, command);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter ServedReply served,
      @Advice.Argument(0) CommandObject<?> command,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
      @Advice.Thrown(readOnly = false) Throwable thrown) {
    if (served != null) {
      result = served.result;
    } else if (thrown != null) {
      ServedReply stale = JedisCommands.staleRead(command, thrown);
      if (stale != null) {
        result = stale.result;
        thrown = null;
      }
    }
    RedisHooks.endRead(thrown != null);
  }
}
