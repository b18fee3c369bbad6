package io.hotkey.agent.instrument.lettuce.v6_0;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.PreferHeapByteBufAllocator;

/**
 * The heap buffer {@link LettuceArguments#encode} writes arguments into, whose allocator hands out
 * heap buffers too. A subclass because {@code UnpooledHeapByteBuf}'s constructor is protected
 * before Netty 4.1.16, which Lettuce 5.0 runs on. A helper class, defined next to Lettuce.
 */
public final class LettuceArgumentsBuffer extends UnpooledHeapByteBuf {
  private static final int INITIAL_CAPACITY = 128;

  public LettuceArgumentsBuffer() {
    super(
        new PreferHeapByteBufAllocator(UnpooledByteBufAllocator.DEFAULT),
        INITIAL_CAPACITY,
        Integer.MAX_VALUE);
  }
}
