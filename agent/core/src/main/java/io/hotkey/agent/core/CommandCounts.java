package io.hotkey.agent.core;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Commands counted as reads and writes, on every command of every application thread.
 *
 * <p>Not two {@code LongAdder}s: those grow only to as many cells as there are cores, so with more
 * threads than cores every command would move a cache line between cores (see the fifth round in
 * docs/performance-history.md). Here a thread counts in the line of its id's stripe: thread pools
 * hand out consecutive ids, so up to {@value #STRIPES} threads each have a line of their own, and
 * the atomic add stays in the core's cache. Reads and writes of one thread share its line.
 */
final class CommandCounts {
  private static final int STRIPES = 32;

  /**
   * Longs per stripe: 128 bytes, the pair of lines that adjacent-line prefetching moves together.
   */
  private static final int STRIDE = 16;

  private final AtomicLongArray cells = new AtomicLongArray(STRIPES * STRIDE);

  void count(boolean write) {
    @SuppressWarnings(
        "deprecation") // Thread.threadId() arrived in Java 19; getId() is the same number
    int stripe = (int) Thread.currentThread().getId() & (STRIPES - 1);
    cells.getAndIncrement(stripe * STRIDE + (write ? 1 : 0));
  }

  long reads() {
    return sum(0);
  }

  long writes() {
    return sum(1);
  }

  private long sum(int offset) {
    long sum = 0;
    for (int stripe = 0; stripe < STRIPES; stripe++) {
      sum += cells.get(stripe * STRIDE + offset);
    }
    return sum;
  }
}
