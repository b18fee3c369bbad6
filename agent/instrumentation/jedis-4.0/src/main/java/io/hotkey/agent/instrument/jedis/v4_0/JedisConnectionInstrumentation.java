package io.hotkey.agent.instrument.jedis.v4_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import io.hotkey.agent.instrument.jedis.common.JedisConnectionCommonAdvice;

/**
 * {@code redis.clients.jedis.Connection}: every command sent, every reply read, the raw reply of a
 * read that fills the local cache, and the classic API's synchronous reads.
 */
final class JedisConnectionInstrumentation implements TypeInstrumentation {
  static final String CONNECTION = "redis.clients.jedis.Connection";

  @Override
  public String typeName() {
    return CONNECTION;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("sendCommand")
            .and(takesArguments(1))
            .and(takesArgument(0, named("redis.clients.jedis.CommandArguments"))),
        JedisSendCommandAdvice.class.getName());
    JedisConnectionCommonAdvice.apply(transformer);
    transformer
        .applyAdvice(named("getOne").and(takesArguments(0)), JedisGetOneAdvice.class.getName())
        .applyAdvice(
            UnifiedJedisInstrumentation.executeCommand(),
            JedisExecuteCommandAdvice.class.getName());
  }
}
