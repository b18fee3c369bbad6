package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/** On {@code RedisStateMachine.safeSetError(output, ByteBuffer)}. */
public final class LettuceReplyErrorAdvice {
  private LettuceReplyErrorAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.Argument(0) Object output) {
    RedisHooks.replyError(output);
  }
}
