package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.multiplexed.LocalAnswerCheck;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;

/**
 * A command's arguments in their wire form ({@code CommandArgs.encode}: the bytes Redis will see
 * whatever the codec), written once for the advice that needs them. A helper class: never loaded by
 * the agent's loader, defined next to Lettuce in each loader that has it ({@link
 * Lettuce6InstrumentationModule}), where the inlined advice calls it.
 */
public final class LettuceArguments {
  private LettuceArguments() {}

  /**
   * Encodes the arguments into a temporary buffer on the heap, which the caller releases once the
   * hook has copied what it keeps. Every buffer the codec asks the target's allocator for is on the
   * heap too ({@code StringCodec.UTF8} encodes each argument into one first): Netty's default
   * unpooled allocator hands out direct buffers (a malloc, a cleaner and sampled leak records per
   * argument), its pooled one an arena lock off Netty's threads.
   */
  public static ByteBuf encode(CommandArgs<?, ?> args) {
    ByteBuf buffer = new LettuceArgumentsBuffer();
    args.encode(buffer);
    return buffer;
  }

  /**
   * Reports a command that is never answered locally (one of a batch, one written around dispatch):
   * it is counted, and invalidates what it writes.
   */
  public static void dispatchUnserved(Object connection, RedisCommand<?, ?, ?> command) {
    CommandArgs<?, ?> args = command.getArgs();
    ByteBuf buffer = args == null ? null : encode(args);
    try {
      RedisHooks.dispatch(
          "lettuce",
          connection,
          command,
          command.getOutput(),
          command.getType().getBytes(),
          buffer == null ? null : buffer.nioBuffer(),
          args == null ? 0 : args.count(),
          LocalAnswerCheck.NEVER);
    } finally {
      if (buffer != null) {
        buffer.release();
      }
    }
  }
}
