package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/** On {@code RedisStateMachine.safeSet(output, boolean)}. */
public final class LettuceReplyBooleanAdvice {
  private LettuceReplyBooleanAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.Argument(0) Object output, @Advice.Argument(1) boolean value) {
    RedisHooks.replyBoolean(output, value);
  }
}
