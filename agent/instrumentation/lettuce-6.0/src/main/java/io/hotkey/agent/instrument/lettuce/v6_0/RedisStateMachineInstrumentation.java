package io.hotkey.agent.instrument.lettuce.v6_0;

import static io.hotkey.agent.instrument.lettuce.v6_0.Lettuce6InstrumentationModule.OUTPUT;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;
import java.nio.ByteBuffer;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code io.lettuce.core.protocol.RedisStateMachine}: the decoder's {@code safe*} callbacks into a
 * command's {@code CommandOutput}, one advice per kind of event.
 */
public final class RedisStateMachineInstrumentation implements TypeInstrumentation {
  @Override
  public String typeName() {
    return "io.lettuce.core.protocol.RedisStateMachine";
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer
        .applyAdvice(
            event(named("safeSet").or(named("safeSetSingle")), ByteBuffer.class),
            LettuceReplyBytesAdvice.class.getName())
        .applyAdvice(
            event(named("safeSetBigNumber"), ByteBuffer.class),
            LettuceReplyBigNumberAdvice.class.getName())
        .applyAdvice(
            event(named("safeSetError"), ByteBuffer.class), LettuceReplyErrorAdvice.class.getName())
        .applyAdvice(event(named("safeSet"), long.class), LettuceReplyLongAdvice.class.getName())
        .applyAdvice(
            event(named("safeSet"), double.class), LettuceReplyDoubleAdvice.class.getName())
        .applyAdvice(
            event(named("safeSet"), boolean.class), LettuceReplyBooleanAdvice.class.getName())
        .applyAdvice(
            event(
                named("safeMultiArray")
                    .or(named("safeMultiSet"))
                    .or(named("safeMultiMap"))
                    // Lettuce 5's only aggregate
                    .or(named("safeMulti")),
                int.class),
            LettuceReplyAggregateAdvice.class.getName());
  }

  /** {@code safe*(CommandOutput output, <value> value, ...)}: three arguments. */
  private static ElementMatcher<MethodDescription> event(
      ElementMatcher.Junction<MethodDescription> names, Class<?> value) {
    return names
        .and(takesArguments(3))
        .and(takesArgument(0, named(OUTPUT)))
        .and(takesArgument(1, value));
  }
}
