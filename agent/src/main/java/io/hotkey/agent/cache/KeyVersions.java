package io.hotkey.agent.cache;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Invalidation counters that make "a write, once returned, is seen by every thread" hold without a
 * lock on the read path.
 *
 * <p>A fill records the counters of its keys <em>before</em> it asks Redis; a write bumps them
 * <em>after</em> Redis has answered it. A cached reply is served only while its recorded counters
 * are still current. So either the write's bump came before the fill's snapshot (then Redis had
 * already applied the write when the fill read it), or it came after (then the entry is dead the
 * moment the bump lands, before the write returns to its caller).
 *
 * <p>Counters are striped by key hash: two keys sharing a stripe only cost each other a spurious
 * miss, never a stale hit. {@link #bumpAll()} (FLUSHALL, SWAPDB, scripts without declared keys...)
 * advances an epoch that every stamp also carries.
 */
public final class KeyVersions {
  private static final int STRIPES = 1 << 16;
  private static final int MASK = STRIPES - 1;

  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);
  private final AtomicLong epoch = new AtomicLong();

  /** Stamp layout: [epoch, version of hashes[0], version of hashes[1], ...]. */
  public long[] stamp(int[] hashes) {
    long[] stamp = new long[hashes.length + 1];
    stamp[0] = epoch.get();
    for (int i = 0; i < hashes.length; i++) {
      stamp[i + 1] = stripes.get(hashes[i] & MASK);
    }
    return stamp;
  }

  public boolean isCurrent(long[] stamp, int[] hashes) {
    if (stamp[0] != epoch.get()) {
      return false;
    }
    for (int i = 0; i < hashes.length; i++) {
      if (stamp[i + 1] != stripes.get(hashes[i] & MASK)) {
        return false;
      }
    }
    return true;
  }

  /** Whether, since {@code stamp} of {@code [hash]} was taken, exactly {@code bumps} bumps reached the hash's stripe and nothing bumped every key. */
  public boolean advancedBy(long[] stamp, int hash, int bumps) {
    return stamp[0] == epoch.get() && stamp[1] + bumps == stripes.get(hash & MASK);
  }

  public void bump(int hash) {
    stripes.incrementAndGet(hash & MASK);
  }

  public void bumpAll() {
    epoch.incrementAndGet();
  }
}
