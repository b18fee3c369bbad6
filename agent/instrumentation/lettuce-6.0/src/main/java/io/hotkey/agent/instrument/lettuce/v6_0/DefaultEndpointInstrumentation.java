package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import java.util.Collection;

/** {@code io.lettuce.core.protocol.DefaultEndpoint}: commands written around dispatch. */
public final class DefaultEndpointInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.protocol.DefaultEndpoint";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("write")
            .and(takesArguments(1))
            .and(
                takesArgument(0, named("io.lettuce.core.protocol.RedisCommand"))
                    .or(takesArgument(0, Collection.class))),
        LettuceEndpointWriteAdvice.class.getName());
  }
}
