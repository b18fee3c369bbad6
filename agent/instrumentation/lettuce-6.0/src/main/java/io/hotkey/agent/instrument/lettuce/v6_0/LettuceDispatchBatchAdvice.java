package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisChannelHandler.dispatch(Collection)}: a batch is counted and invalidates, never
 * answered locally ({@link LettuceArguments#dispatchUnserved}).
 */
public final class LettuceDispatchBatchAdvice {
  private LettuceDispatchBatchAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  @SuppressWarnings("rawtypes")
  public static void onEnter(
      @Advice.This Object connection, @Advice.Argument(0) Collection<?> commands) {
    if (!RedisHooks.active()) {
      return;
    }
    for (Object element : commands) {
      RedisCommand command = (RedisCommand) element;
      CommandArgs args = command.getArgs();
      if (args instanceof EncodedArgsField) {
        ((EncodedArgsField) args).hotkey$encodedArgs(EncodedArgsField.DISPATCHED);
      }
      LettuceArguments.dispatchUnserved(connection, command);
    }
  }
}
