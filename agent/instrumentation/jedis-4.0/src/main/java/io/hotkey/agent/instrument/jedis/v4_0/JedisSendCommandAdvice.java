package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;
import redis.clients.jedis.CommandArguments;

/**
 * On {@code Connection.sendCommand(CommandArguments)}, the funnel every Jedis 4+ command passes
 * through.
 */
public final class JedisSendCommandAdvice {
  private JedisSendCommandAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) CommandArguments arguments) {
    RedisHooks.onSend(connection, socket, arguments, JedisCommands.argv(arguments));
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(@Advice.This Object connection, @Advice.Thrown Throwable thrown) {
    if (thrown != null) {
      RedisHooks.onSendFailed(connection);
    }
  }
}
