package io.hotkey.agent.instrument.jedis.v4_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.ClassLoaderMatchers;
import io.hotkey.agent.instrument.ClientInstrumentation;
import io.hotkey.agent.instrument.jedis.common.JedisConnectionCloseAdvice;
import io.hotkey.agent.instrument.jedis.common.JedisReplyReadAdvice;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Jedis 4.x to 8.x, recognised by {@code CommandObject}: every command is counted where it is sent,
 * every reply where it is read, and synchronous reads of hot keys are served around {@code
 * executeCommand}, of the pooled client before it borrows a connection, of the connection for the
 * classic API.
 */
public final class JedisConnectionInstrumentation implements ClientInstrumentation {
  private static final String CONNECTION = "redis.clients.jedis.Connection";

  @Override
  public String name() {
    return "jedis-4+";
  }

  @Override
  public AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice) {
    return builder
        .type(named(CONNECTION), ClassLoaderMatchers.hasClass("redis.clients.jedis.CommandObject"))
        .transform(
            advice
                .advice(
                    named("sendCommand")
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("redis.clients.jedis.CommandArguments"))),
                    JedisSendCommandAdvice.class.getName())
                .advice(
                    named("readProtocolWithCheckingBroken").and(takesArguments(0)),
                    JedisReplyReadAdvice.class.getName())
                .advice(
                    named("close").or(named("disconnect")).and(takesArguments(0)),
                    JedisConnectionCloseAdvice.class.getName())
                .advice(named("getOne").and(takesArguments(0)), JedisGetOneAdvice.class.getName())
                .advice(
                    named("executeCommand")
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("redis.clients.jedis.CommandObject"))),
                    JedisExecuteCommandAdvice.class.getName()))
        .type(named("redis.clients.jedis.UnifiedJedis"))
        .transform(
            advice.advice(
                named("executeCommand")
                    .and(takesArguments(1))
                    .and(takesArgument(0, named("redis.clients.jedis.CommandObject"))),
                JedisUnifiedExecuteCommandAdvice.class.getName()));
  }
}
