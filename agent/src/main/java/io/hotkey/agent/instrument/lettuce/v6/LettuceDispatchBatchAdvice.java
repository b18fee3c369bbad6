package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/** On {@code RedisChannelHandler.dispatch(Collection)}: a batch is counted and invalidates, never answered locally. */
public final class LettuceDispatchBatchAdvice {
  private LettuceDispatchBatchAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.Origin Class<?> handler, @Advice.This Object connection,
      @Advice.Argument(0) Collection<?> commands) {
    if (RedisHooks.active()) {
      LettuceHelpers.dispatch(handler).dispatchBatch(connection, commands);
    }
  }
}
