package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/** {@code io.lettuce.core.RedisHandshake}: every channel's login, before it is sent. */
final class RedisHandshakeInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.RedisHandshake";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("initialize")
            .and(takesArguments(1))
            .and(takesArgument(0, named("io.netty.channel.Channel"))),
        LettuceHandshakeAdvice.class.getName());
  }
}
