package io.hotkey.agent.instrument.jedis.v3_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import io.hotkey.agent.instrument.jedis.common.JedisDisconnectAdvice;

/**
 * Jedis 3's {@code redis.clients.jedis.Connection}: every command sent, every reply read (or
 * answered locally), every close.
 */
final class Jedis3ConnectionInstrumentation implements TypeInstrumentation {
  static final String CONNECTION = "redis.clients.jedis.Connection";

  @Override
  public String typeName() {
    return CONNECTION;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer
        .applyAdvice(
            named("sendCommand")
                .and(takesArguments(2))
                .and(takesArgument(0, named("redis.clients.jedis.commands.ProtocolCommand")))
                .and(takesArgument(1, byte[][].class)),
            Jedis3SendCommandAdvice.class.getName())
        .applyAdvice(
            named("readProtocolWithCheckingBroken").and(takesArguments(0)),
            Jedis3ReplyReadAdvice.class.getName())
        .applyAdvice(
            named("close").or(named("disconnect")).and(takesArguments(0)),
            JedisDisconnectAdvice.class.getName());
  }
}
