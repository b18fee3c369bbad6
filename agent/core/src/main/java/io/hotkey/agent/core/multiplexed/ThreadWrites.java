package io.hotkey.agent.core.multiplexed;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The writes one thread sent on multiplexed connections whose reply has not started yet. A read the
 * same thread sends afterwards must see them (Redis answers a connection in order, and the thread's
 * program order is what the application relies on, as in {@code set(k, v); get(k)} pipelined), so
 * it is never answered from the local entry; it waits behind them ({@link SetRun}) or goes to
 * Redis. Other threads' reads are concurrent with such a write until it returns, so the entry's
 * value (the one before the write) is one Redis could give them too, and they are served; the
 * write's reply invalidates the entry before the write returns.
 *
 * <p>Striped by key hash: a shared stripe only costs a local miss. Acquired on the sending thread,
 * released on the I/O thread that reads the reply, hence atomic.
 */
final class ThreadWrites {
  private static final int STRIPES = 64;
  private static final int MASK = STRIPES - 1;

  private final AtomicIntegerArray stripes = new AtomicIntegerArray(STRIPES);

  void acquire(int hash) {
    stripes.incrementAndGet(hash & MASK);
  }

  void release(int hash) {
    stripes.decrementAndGet(hash & MASK);
  }

  boolean blocks(int[] hashes) {
    for (int hash : hashes) {
      if (stripes.get(hash & MASK) > 0) {
        return true;
      }
    }
    return false;
  }
}
