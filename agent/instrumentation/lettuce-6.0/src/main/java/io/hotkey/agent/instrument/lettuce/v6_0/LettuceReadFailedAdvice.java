package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.protocol.RedisCommand;
import net.bytebuddy.asm.Advice;

/**
 * On {@code completeExceptionally(Throwable)} of the commands that wrap Lettuce's innermost one
 * ({@code AsyncCommand}, {@code CommandWrapper}, {@code ClusterCommand}): a hot read failed by a
 * timeout ({@code CommandExpiryWriter}, the async and reactive APIs' timer) or by its connection is
 * answered from its key's last value when it may be ({@link LettuceStaleAnswers#answer}), and the
 * method is skipped. The outermost wrapper is the one failed, so it completes normally and tells
 * every inner one; a wrapper it then calls finds the read no longer answerable.
 */
public final class LettuceReadFailedAdvice {
  private LettuceReadFailedAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static boolean onEnter(
      @Advice.This RedisCommand<?, ?, ?> command, @Advice.Argument(0) Throwable failure) {
    return LettuceStaleAnswers.answer(command, failure);
  }

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter boolean answered, @Advice.Return(readOnly = false) boolean completed) {
    if (answered) {
      completed = true;
    }
  }
}
