package io.hotkey.agent.instrument.jedis.v3_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * On Jedis 3's {@code Connection.sendCommand(ProtocolCommand, byte[]...)}, where every command is
 * sent.
 */
public final class Jedis3SendCommandAdvice {
  private Jedis3SendCommandAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) ProtocolCommand command,
      @Advice.Argument(1) byte[][] arguments) {
    byte[][] argv = new byte[arguments.length + 1][];
    argv[0] = command.getRaw();
    System.arraycopy(arguments, 0, argv, 1, arguments.length);
    RedisHooks.onSend(connection, socket, arguments, argv);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(@Advice.This Object connection, @Advice.Thrown Throwable thrown) {
    if (thrown != null) {
      RedisHooks.onSendFailed(connection);
    }
  }
}
