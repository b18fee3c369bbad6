package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/** {@code io.lettuce.core.protocol.Command}, the innermost command: where every command ends. */
public final class CommandInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.protocol.Command";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("complete")
            .and(takesArguments(0))
            .or(named("cancel").and(takesArguments(0)))
            .or(named("completeExceptionally").and(takesArguments(1))),
        LettuceCommandDoneAdvice.class.getName());
  }
}
