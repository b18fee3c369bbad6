package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/** {@code io.lettuce.core.SslConnectionBuilder$SslChannelInitializer}: a TLS channel's setup. */
final class SslChannelInitializerInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.SslConnectionBuilder$SslChannelInitializer";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("initChannel")
            .and(takesArguments(1))
            .and(takesArgument(0, named("io.netty.channel.Channel"))),
        LettuceTlsChannelAdvice.class.getName());
  }
}
