package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.ConnectionState;
import io.netty.channel.Channel;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisHandshake.initialize(Channel)}: a channel of any Lettuce connection (standalone, a
 * Cluster node, Sentinel, Pub/Sub) is connected and about to log in; its server is recorded as the
 * agent's own tracking connection will reach it ({@link LettuceLogins#handshake}).
 */
public final class LettuceHandshakeAdvice {
  private LettuceHandshakeAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.FieldValue("connectionState") ConnectionState state,
      @Advice.Argument(0) Channel channel) {
    if (RedisHooks.active()) {
      LettuceLogins.handshake(channel, state);
    }
  }
}
