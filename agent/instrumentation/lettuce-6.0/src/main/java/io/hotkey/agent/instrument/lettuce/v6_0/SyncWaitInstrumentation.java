package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import java.util.concurrent.TimeUnit;

/** {@code io.lettuce.core.internal.Futures}: the sync API's wait for a command. */
final class SyncWaitInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.internal.Futures";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("awaitOrCancel")
            .and(isStatic())
            .and(takesArguments(3))
            .and(takesArgument(0, named("io.lettuce.core.RedisFuture")))
            .and(takesArgument(2, TimeUnit.class)),
        LettuceAwaitOrCancelAdvice.class.getName());
  }
}
