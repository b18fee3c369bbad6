package io.hotkey.agent.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Writes sent on a multiplexed connection whose reply has not started yet. Redis answers a
 * connection's commands in order, so a read sent after such a write must see it: while any write to
 * a key is in flight, reads of that key are not answered locally (they go to Redis, behind the write).
 * Striped by key hash like {@code KeyVersions}: a shared stripe only costs a local miss.
 */
final class InFlightWrites {
  private static final int STRIPES = 1 << 14;
  private static final int MASK = STRIPES - 1;

  private final AtomicIntegerArray stripes = new AtomicIntegerArray(STRIPES);
  private final AtomicInteger all = new AtomicInteger();

  void acquire(int hash) {
    stripes.incrementAndGet(hash & MASK);
  }

  void release(int hash) {
    stripes.decrementAndGet(hash & MASK);
  }

  void acquireAll() {
    all.incrementAndGet();
  }

  void releaseAll() {
    all.decrementAndGet();
  }

  boolean blocks(int[] hashes) {
    if (all.get() > 0) {
      return true;
    }
    for (int hash : hashes) {
      if (stripes.get(hash & MASK) > 0) {
        return true;
      }
    }
    return false;
  }
}
