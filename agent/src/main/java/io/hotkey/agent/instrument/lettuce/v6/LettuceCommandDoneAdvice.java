package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On the innermost {@code Command}'s {@code complete()}, {@code completeExceptionally} and
 * {@code cancel()}: every wrapper (AsyncCommand, the reactive subscription, cluster, tracing) ends
 * there, so whatever a command that got no reply left tracked is released.
 */
public final class LettuceCommandDoneAdvice {
  private LettuceCommandDoneAdvice() {}

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(@Advice.FieldValue("output") Object output) {
    RedisHooks.commandDone(output);
  }
}
