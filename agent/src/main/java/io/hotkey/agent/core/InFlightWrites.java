package io.hotkey.agent.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Writes sent on a multiplexed connection whose reply has not started yet. Redis answers a
 * connection's commands in order, so a read sent after such a write must see it: while any write to
 * a key is in flight, reads of that key are not answered from the local entry (they go to Redis,
 * behind the write, or wait behind a {@link SetRun} of the key). Striped by key hash like
 * {@code KeyVersions}: a shared stripe only costs a local miss.
 */
final class InFlightWrites {
  private static final int STRIPES = 1 << 14;
  private static final int MASK = STRIPES - 1;

  private final AtomicIntegerArray stripes = new AtomicIntegerArray(STRIPES);
  private final AtomicInteger all = new AtomicInteger();
  /** The {@link SetRun} in flight per stripe, if any. */
  private final AtomicReferenceArray<SetRun> runs = new AtomicReferenceArray<>(STRIPES);

  /** Returns whether this write is the only one in flight on its stripe. */
  boolean acquire(int hash) {
    return stripes.incrementAndGet(hash & MASK) == 1 && all.get() == 0;
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

  /** Whether exactly {@code writes} writes are in flight on the stripe of {@code hash}, and no write to every key. */
  boolean onlyWrites(int hash, int writes) {
    return stripes.get(hash & MASK) == writes && all.get() == 0;
  }

  void publish(SetRun run) {
    runs.set(run.hash & MASK, run);
  }

  /** The run of SETs in flight on the stripe of {@code hash}, or null. */
  SetRun run(int hash) {
    return runs.get(hash & MASK);
  }

  void unpublish(SetRun run) {
    runs.compareAndSet(run.hash & MASK, run, null);
  }
}
