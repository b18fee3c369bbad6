package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.SslOptions;
import io.netty.channel.Channel;
import net.bytebuddy.asm.Advice;

/**
 * On {@code SslConnectionBuilder.SslChannelInitializer.initChannel(Channel)}: a channel gets TLS
 * from the client's {@code SslOptions} and the URI's verify mode, which the agent's own connection
 * to its server reuses ({@link LettuceLogins#tlsChannel}).
 */
public final class LettuceTlsChannelAdvice {
  private LettuceTlsChannelAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.FieldValue("sslOptions") SslOptions options,
      @Advice.FieldValue("verifyPeer") Object verifyPeer,
      @Advice.Argument(0) Channel channel) {
    if (RedisHooks.active()) {
      LettuceLogins.tlsChannel(channel, options, verifyPeer);
    }
  }
}
