package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * A command class that wraps another and fails it ({@code completeExceptionally}): where a hot read
 * failed by a timeout or its connection may be answered stale ({@link LettuceReadFailedAdvice}).
 */
final class CommandFailureInstrumentation implements TypeInstrumentation {
  static final String ASYNC_COMMAND = "io.lettuce.core.protocol.AsyncCommand";
  static final String COMMAND_WRAPPER = "io.lettuce.core.protocol.CommandWrapper";
  static final String CLUSTER_COMMAND = "io.lettuce.core.cluster.ClusterCommand";

  private final String typeName;

  CommandFailureInstrumentation(String typeName) {
    this.typeName = typeName;
  }

  @Override
  public String typeName() {
    return typeName;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("completeExceptionally").and(takesArguments(1)).and(returns(boolean.class)),
        LettuceReadFailedAdvice.class.getName());
  }
}
