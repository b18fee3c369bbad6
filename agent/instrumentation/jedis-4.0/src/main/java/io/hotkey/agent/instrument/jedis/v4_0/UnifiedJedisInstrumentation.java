package io.hotkey.agent.instrument.jedis.v4_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code redis.clients.jedis.UnifiedJedis}, the base of the pooled and cluster clients: their
 * synchronous reads, decided before a connection is borrowed.
 */
final class UnifiedJedisInstrumentation implements TypeInstrumentation {
  /** {@code executeCommand(CommandObject)}, on the client and on the connection. */
  static ElementMatcher<MethodDescription> executeCommand() {
    return named("executeCommand")
        .and(takesArguments(1))
        .and(takesArgument(0, named("redis.clients.jedis.CommandObject")));
  }

  @Override
  public String typeName() {
    return "redis.clients.jedis.UnifiedJedis";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(executeCommand(), JedisUnifiedExecuteCommandAdvice.class.getName());
  }
}
