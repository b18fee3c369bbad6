package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * {@code io.lettuce.core.protocol.CommandHandler}: the output the decoder writes a command's reply
 * into ({@link LettuceDecodeTargetAdvice}).
 */
final class CommandHandlerInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.protocol.CommandHandler";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("getCommandOutput").and(takesArguments(1)),
        LettuceDecodeTargetAdvice.class.getName());
  }
}
