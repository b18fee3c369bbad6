package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.PreferHeapByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisChannelHandler.dispatch(Collection)}: a batch is counted and invalidates, never
 * answered locally. Each command's arguments are encoded into a temporary heap buffer, released
 * once the hook has copied what it keeps, for the reason {@link LettuceDispatchAdvice} gives.
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
      ByteBuf buffer = null;
      try {
        ByteBuffer encoded = null;
        int count = 0;
        if (args != null) {
          buffer =
              new UnpooledHeapByteBuf(
                  new PreferHeapByteBufAllocator(UnpooledByteBufAllocator.DEFAULT),
                  128,
                  Integer.MAX_VALUE);
          args.encode(buffer);
          encoded = buffer.nioBuffer();
          count = args.count();
        }
        RedisHooks.dispatch(
            "lettuce",
            connection,
            command,
            command.getOutput(),
            command.getType().getBytes(),
            encoded,
            count,
            true);
      } finally {
        if (buffer != null) {
          buffer.release();
        }
      }
    }
  }
}
