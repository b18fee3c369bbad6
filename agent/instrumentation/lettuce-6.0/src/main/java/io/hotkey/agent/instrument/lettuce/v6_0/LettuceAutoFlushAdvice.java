package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisChannelHandler.setAutoFlushCommands(boolean)}: no local answers while the
 * application batches by hand.
 */
public final class LettuceAutoFlushAdvice {
  private LettuceAutoFlushAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.This Object connection, @Advice.Argument(0) boolean autoFlush) {
    RedisHooks.manualFlush(connection, !autoFlush);
  }
}
