package io.hotkey.agent.instrument.lettuce.v6_0;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import java.util.Collection;

/**
 * {@code io.lettuce.core.RedisChannelHandler}, the base of every connection: commands dispatched
 * one by one or as a batch, manual flushing, and the channel lost or regained.
 */
public final class RedisChannelHandlerInstrumentation implements TypeInstrumentation {
  static final String CHANNEL_HANDLER = "io.lettuce.core.RedisChannelHandler";

  @Override
  public String typeName() {
    return CHANNEL_HANDLER;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer
        .applyAdvice(
            named("dispatch")
                .and(takesArguments(1))
                .and(takesArgument(0, named("io.lettuce.core.protocol.RedisCommand"))),
            LettuceDispatchAdvice.class.getName())
        .applyAdvice(
            named("dispatch").and(takesArguments(1)).and(takesArgument(0, Collection.class)),
            LettuceDispatchBatchAdvice.class.getName())
        .applyAdvice(
            named("setAutoFlushCommands").and(takesArguments(boolean.class)),
            LettuceAutoFlushAdvice.class.getName())
        .applyAdvice(
            named("activated").or(named("deactivated")).and(takesArguments(0)),
            LettuceConnectionResetAdvice.class.getName());
  }
}
