package io.hotkey.agent.instrument.jedis.v3_0;

import net.bytebuddy.asm.Advice;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * On Jedis 3's {@code Connection.sendCommand(ProtocolCommand, byte[]...)}, where every command is
 * sent: the first command of an API call may be answered locally, and then is not sent ({@link
 * Jedis3Calls#answeredLocally}); every other is reported once written.
 */
public final class Jedis3SendCommandAdvice {
  private Jedis3SendCommandAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static boolean onEnter(
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) ProtocolCommand command,
      @Advice.Argument(1) byte[][] arguments) {
    return Jedis3Calls.answeredLocally(connection, socket, command, arguments);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter boolean answeredLocally,
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) ProtocolCommand command,
      @Advice.Argument(1) byte[][] arguments,
      @Advice.Thrown Throwable thrown) {
    if (!answeredLocally) {
      Jedis3Calls.sent(connection, socket, command, arguments, thrown != null);
    }
  }
}
