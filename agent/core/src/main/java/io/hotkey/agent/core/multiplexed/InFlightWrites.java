package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.core.WriteSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Writes sent on multiplexed connections (by any thread) whose reply has not started yet, counted
 * per stripe of key hashes like {@code KeyVersions}. A write to every key (FLUSHALL...) in flight
 * stops all local answers; per key, a thread's own writes stop its own reads ({@link
 * ThreadWrites}), and these counts tell a {@link SetRun} whether its members are the only writes to
 * the key in flight.
 */
final class InFlightWrites {
  private static final int STRIPES = 1 << 14;
  private static final int MASK = STRIPES - 1;

  private final AtomicIntegerArray stripes = new AtomicIntegerArray(STRIPES);
  private final AtomicInteger all = new AtomicInteger();

  /** The {@link SetRun} in flight per stripe, if any. */
  private final AtomicReferenceArray<SetRun> runs = new AtomicReferenceArray<>(STRIPES);

  /**
   * Counts {@code writes} in flight, sent by {@code sender}; returns whether they were the only
   * ones on their stripes.
   */
  boolean acquire(WriteSet writes, ThreadWrites sender) {
    boolean everything = writes.everything();
    if (everything) {
      all.incrementAndGet();
    }
    boolean alone = !everything;
    for (int i = 0; i < writes.size(); i++) {
      int hash = writes.hash(i);
      alone &= stripes.incrementAndGet(hash & MASK) == 1 && all.get() == 0;
      sender.acquire(hash);
    }
    return alone;
  }

  /** Their replies started: {@code writes}, sent by {@code sender}, are no longer in flight. */
  void release(WriteSet writes, ThreadWrites sender) {
    if (writes.everything()) {
      all.decrementAndGet();
    }
    for (int i = 0; i < writes.size(); i++) {
      int hash = writes.hash(i);
      stripes.decrementAndGet(hash & MASK);
      sender.release(hash);
    }
  }

  /** Whether a write to every key is in flight. */
  boolean blocksEverything() {
    return all.get() > 0;
  }

  /**
   * Whether exactly {@code writes} writes are in flight on the stripe of {@code hash}, and no write
   * to every key.
   */
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
