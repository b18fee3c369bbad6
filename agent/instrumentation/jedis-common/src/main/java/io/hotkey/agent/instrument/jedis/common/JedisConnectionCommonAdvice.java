package io.hotkey.agent.instrument.jedis.common;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeTransformer;

/**
 * The advice every Jedis line from 4 to 8 puts on {@code redis.clients.jedis.Connection}: every
 * reply read, every close (a pooled connection's: its return to the pool) and every disconnect.
 */
public final class JedisConnectionCommonAdvice {
  private JedisConnectionCommonAdvice() {}

  public static void apply(TypeTransformer transformer) {
    transformer
        .applyAdvice(
            named("readProtocolWithCheckingBroken").and(takesArguments(0)),
            JedisReplyReadAdvice.class.getName())
        .applyAdvice(
            named("close").and(takesArguments(0)), JedisConnectionCloseAdvice.class.getName())
        .applyAdvice(
            named("disconnect").and(takesArguments(0)), JedisDisconnectAdvice.class.getName());
  }
}
