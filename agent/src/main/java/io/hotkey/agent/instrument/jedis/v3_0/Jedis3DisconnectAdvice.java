package io.hotkey.agent.instrument.jedis.v3_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On Jedis 3's {@code Connection.close()} and {@code disconnect()}, which close the socket (its
 * pools take a {@code Jedis} back without closing it): the writes still owed a reply invalidate
 * now, and the socket it opens when used again starts a new session, in database 0 unless its
 * client selects another.
 */
public final class Jedis3DisconnectAdvice {
  private Jedis3DisconnectAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.This Object connection) {
    RedisHooks.onSessionEnded(connection);
  }
}
