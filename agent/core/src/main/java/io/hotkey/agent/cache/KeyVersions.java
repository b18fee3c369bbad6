package io.hotkey.agent.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * advances an epoch that every stamp also carries; {@link #distrustAll()} (a lost invalidation
 * stream: nothing is known to have changed, but a change could go unreported) advances a second
 * one, which {@link #isUnchanged} ignores: serving a stale value on error may outlive a distrust,
 * never a change.
 *
 * <p>A bump only matters to a stripe some stamp has covered, and only hot keys are ever stamped, so
 * a stripe is marked when it is first stamped and a bump of an unmarked one is skipped: the write
 * of a cold key costs the decoder's thread one read of a bitmap (8 KB) instead of an atomic update
 * to a cache line of the 512 KB counter array that nothing will read. The mark is set by the stamp,
 * so before the fill asks Redis: a bump that saw no mark came before the fill's question, and Redis
 * had applied that write when the fill read it. Marks are never cleared (clearing one safely would
 * need to know that no stamp of it is left): a stripe of a key that was hot once stays bumped, as
 * every stripe used to be.
 */
public final class KeyVersions {
  private static final int STRIPES = 1 << 16;
  private static final int MASK = STRIPES - 1;

  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(int[].class);

  private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);

  /** One bit per stripe: whether a stamp ever covered it. */
  private final int[] stamped = new int[STRIPES / Integer.SIZE];

  private final AtomicLong epoch = new AtomicLong();
  private final AtomicLong distrust = new AtomicLong();

  /** Stamp layout: [epoch, distrust, version of hashes[0], version of hashes[1], ...]. */
  public long[] stamp(int[] hashes) {
    long[] stamp = new long[hashes.length + 2];
    for (int hash : hashes) {
      mark(hash & MASK);
    }
    stamp[0] = epoch.get();
    stamp[1] = distrust.get();
    for (int i = 0; i < hashes.length; i++) {
      stamp[i + 2] = stripes.get(hashes[i] & MASK);
    }
    return stamp;
  }

  public boolean isCurrent(long[] stamp, int[] hashes) {
    return stamp[1] == distrust.get() && isUnchanged(stamp, hashes);
  }

  /** Whether nothing changed the keys since {@code stamp}, though it may since be distrusted. */
  public boolean isUnchanged(long[] stamp, int[] hashes) {
    if (stamp[0] != epoch.get()) {
      return false;
    }
    for (int i = 0; i < hashes.length; i++) {
      if (stamp[i + 2] != stripes.get(hashes[i] & MASK)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether, since {@code stamp} of {@code [hash]} was taken, exactly {@code bumps} bumps reached
   * the hash's stripe and nothing bumped every key.
   */
  public boolean advancedBy(long[] stamp, int hash, int bumps) {
    return stamp[0] == epoch.get()
        && stamp[1] == distrust.get()
        && stamp[2] + bumps == stripes.get(hash & MASK);
  }

  /**
   * Whether, between two stamps of one key, exactly {@code bumps} bumps reached its stripe and
   * nothing bumped or distrusted every key.
   */
  public static boolean advancedBetween(long[] before, long[] after, int bumps) {
    return after[0] == before[0] && after[1] == before[1] && after[2] == before[2] + bumps;
  }

  public void bump(int hash) {
    int stripe = hash & MASK;
    if (isMarked(stripe)) {
      stripes.incrementAndGet(stripe);
    }
  }

  private void mark(int stripe) {
    int bit = 1 << stripe;
    if (((int) WORDS.getVolatile(stamped, stripe >>> 5) & bit) == 0) {
      WORDS.getAndBitwiseOr(stamped, stripe >>> 5, bit);
    }
  }

  private boolean isMarked(int stripe) {
    return ((int) WORDS.getVolatile(stamped, stripe >>> 5) & (1 << stripe)) != 0;
  }

  public void bumpAll() {
    epoch.incrementAndGet();
  }

  /** No entry is served until read again, though none is known to have changed. */
  public void distrustAll() {
    distrust.incrementAndGet();
  }
}
