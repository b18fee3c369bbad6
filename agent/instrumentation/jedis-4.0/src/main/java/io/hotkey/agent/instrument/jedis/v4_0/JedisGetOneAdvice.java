package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code Connection.getOne()}: hands the raw reply of a read that fills the local cache to the
 * core.
 */
public final class JedisGetOneAdvice {
  private JedisGetOneAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(@Advice.Return Object raw) {
    RedisHooks.onRawReply(raw);
  }
}
