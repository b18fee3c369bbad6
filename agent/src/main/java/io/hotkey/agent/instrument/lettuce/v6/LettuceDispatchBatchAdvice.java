package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Collection;
import net.bytebuddy.asm.Advice;

/** On {@code RedisChannelHandler.dispatch(Collection)}: a batch is counted and invalidates, never answered locally. */
public final class LettuceDispatchBatchAdvice {
  private LettuceDispatchBatchAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  @SuppressWarnings("rawtypes")
  public static void onEnter(@Advice.This Object connection, @Advice.Argument(0) Collection<?> commands) {
    for (Object element : commands) {
      RedisCommand command = (RedisCommand) element;
      CommandArgs args = command.getArgs();
      ByteBuffer encoded = null;
      int count = 0;
      if (args != null) {
        ByteBuf buffer = Unpooled.buffer(128);
        args.encode(buffer);
        encoded = buffer.nioBuffer();
        count = args.count();
      }
      RedisHooks.dispatch("lettuce", connection, command, command.getOutput(), command.getType().getBytes(), encoded, count,
          true);
    }
  }
}
