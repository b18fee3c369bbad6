package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.core.WriteSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Writes sent on multiplexed connections (by any thread) whose reply has not started yet, counted
 * per stripe of key hashes like {@code KeyVersions}. No read of a key with a write in flight is
 * answered from its local entry, whichever thread sent the write: Redis answers a connection in
 * order, so a read sent after the write on a shared connection sees it, and applications rely on
 * that even for writes they do not wait on (Spring Data Redis' cache puts on Lettuce). Such a read
 * waits behind the write ({@link SetRun}) or goes to Redis. A write to every key (FLUSHALL...) in
 * flight stops all local answers. The counts also tell a {@link SetRun} whether its members are the
 * only writes to the key in flight.
 *
 * <p>Striped by key hash: a shared stripe only costs a local miss. Acquired on the sending thread,
 * released on the I/O thread that reads the reply, hence atomic.
 */
final class InFlightWrites {
  private static final int STRIPES = 1 << 14;
  private static final int MASK = STRIPES - 1;

  private final AtomicIntegerArray stripes = new AtomicIntegerArray(STRIPES);
  private final AtomicInteger all = new AtomicInteger();

  /** The {@link SetRun} in flight per stripe, if any. */
  private final AtomicReferenceArray<SetRun> runs = new AtomicReferenceArray<>(STRIPES);

  /** Counts {@code writes} in flight; returns whether they were the only ones on their stripes. */
  boolean acquire(WriteSet writes) {
    boolean everything = writes.everything();
    if (everything) {
      all.incrementAndGet();
    }
    boolean alone = !everything;
    for (int i = 0; i < writes.size(); i++) {
      int hash = writes.hash(i);
      alone &= stripes.incrementAndGet(hash & MASK) == 1 && all.get() == 0;
    }
    return alone;
  }

  /** Their replies started: {@code writes} are no longer in flight. */
  void release(WriteSet writes) {
    if (writes.everything()) {
      all.decrementAndGet();
    }
    for (int i = 0; i < writes.size(); i++) {
      stripes.decrementAndGet(writes.hash(i) & MASK);
    }
  }

  /**
   * Whether a write to every key, or to a key on the stripe of one of {@code hashes}, is in flight.
   */
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
