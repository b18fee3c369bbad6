package io.hotkey.agent.instrument.jedis.common;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code Connection.disconnect()} (Jedis 3 to 8), and on Jedis 3's {@code close()}, which only
 * disconnects: the socket is closed, so the writes still owed a reply invalidate now, and the
 * socket the connection opens when used again starts a new session. Every Jedis line reconnects in
 * database 0 as the default user, whatever was selected before, unless it sends its AUTH and SELECT
 * again.
 */
public final class JedisDisconnectAdvice {
  private JedisDisconnectAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.This Object connection) {
    RedisHooks.onSessionEnded(connection);
  }
}
