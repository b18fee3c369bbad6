package io.hotkey.agent.instrument.jedis.v3_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ClientInstrumentation;
import io.hotkey.agent.instrument.jedis.common.JedisConnectionCloseAdvice;
import io.hotkey.agent.instrument.jedis.common.JedisReplyReadAdvice;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Jedis 3.x, recognised by {@code BinaryJedis} without Jedis 4's {@code CommandObject}: commands
 * are counted (so hot keys are detected and reported) and writes invalidate local entries; reads
 * are not served locally, because Jedis 3 decodes replies inside dozens of typed methods rather
 * than one funnel the agent could answer in.
 */
public final class Jedis3ConnectionInstrumentation implements ClientInstrumentation {
  @Override
  public String name() {
    return "jedis-3";
  }

  @Override
  public AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice) {
    return builder
        .type(
            named("redis.clients.jedis.Connection"),
            ClassLoaderMatchers.hasClass("redis.clients.jedis.BinaryJedis")
                .and(not(ClassLoaderMatchers.hasClass("redis.clients.jedis.CommandObject"))))
        .transform(
            advice
                .advice(
                    named("sendCommand")
                        .and(takesArguments(2))
                        .and(
                            takesArgument(0, named("redis.clients.jedis.commands.ProtocolCommand")))
                        .and(takesArgument(1, byte[][].class)),
                    Jedis3SendCommandAdvice.class.getName())
                .advice(
                    named("readProtocolWithCheckingBroken").and(takesArguments(0)),
                    JedisReplyReadAdvice.class.getName())
                .advice(
                    named("close").or(named("disconnect")).and(takesArguments(0)),
                    JedisConnectionCloseAdvice.class.getName()));
  }
}
