package io.hotkey.agent.cache;

import java.util.concurrent.atomic.LongAdder;

/**
 * The reads of one hot key since it became hot: answered from the local cache (hits) or sent to
 * Redis (misses); and the invalidations tracking received for it, which the fan-out guard weighs
 * against those reads. Only hot keys have one, made when the key becomes hot and dropped when it
 * cools, so a key promoted again starts from zero.
 *
 * <p>A hot key is read by many threads at once, so each count is a {@link LongAdder}: a thread adds
 * in a cell of its own once threads collide, and no read takes a lock.
 */
public final class HotKeyReads {
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder invalidations = new LongAdder();

  /** Counts one read of each of the first {@code count} keys: a hit, or a miss. */
  public static void count(HotKeyReads[] keys, int count, boolean hit) {
    for (int n = 0; n < count; n++) {
      (hit ? keys[n].hits : keys[n].misses).increment();
    }
  }

  /** Counts one report, received through tracking, that the key changed. */
  public void countInvalidation() {
    invalidations.increment();
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  public long invalidations() {
    return invalidations.sum();
  }
}
