package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisChannelHandler.activated()} and {@code deactivated()}: the connection lost its
 * channel, or a reconnect's handshake (which never passes dispatch, and may authenticate with other
 * credentials) gave it a new one, so its reads leave the entries filled before behind.
 */
public final class LettuceConnectionResetAdvice {
  private LettuceConnectionResetAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.This Object connection, @Advice.Origin("#m") String method) {
    RedisHooks.onConnectionReset(connection, "deactivated".equals(method));
  }
}
