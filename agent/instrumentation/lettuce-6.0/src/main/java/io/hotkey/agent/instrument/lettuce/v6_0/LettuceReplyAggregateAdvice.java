package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisStateMachine.safeMultiArray}, {@code safeMultiSet}, {@code safeMultiMap}, and
 * Lettuce 5's {@code safeMulti} (an array).
 */
public final class LettuceReplyAggregateAdvice {
  private LettuceReplyAggregateAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.Origin("#m") String method,
      @Advice.Argument(0) Object output,
      @Advice.Argument(1) int count) {
    RedisHooks.replyAggregate(output, method, count);
  }
}
