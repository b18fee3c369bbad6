package io.hotkey.agent.instrument.jedis.common;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code Connection.close()} (Jedis 4 to 8): a connection closed, dropped or handed back to its
 * pool with replies still unread (a pipeline or a transaction left by an exception) will never read
 * them, so the writes it sent invalidate now.
 */
public final class JedisConnectionCloseAdvice {
  private JedisConnectionCloseAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.This Object connection) {
    RedisHooks.onConnectionClosed(connection);
  }
}
