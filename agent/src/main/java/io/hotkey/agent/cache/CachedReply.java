package io.hotkey.agent.cache;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/** A frozen reply with the invalidation stamp it was read under (see {@link KeyVersions}). */
public final class CachedReply {
  private final Object frozen;
  private final long[] stamp;
  private final int weight;
  private final long storedAtNanos = System.nanoTime();

  /** 1 once a read was chosen to refresh this entry ahead of its expiry. */
  private volatile int refreshing;

  private static final AtomicIntegerFieldUpdater<CachedReply> REFRESHING =
      AtomicIntegerFieldUpdater.newUpdater(CachedReply.class, "refreshing");

  CachedReply(Object frozen, long[] stamp, int weight) {
    this.frozen = frozen;
    this.stamp = stamp;
    this.weight = weight;
  }

  long ageNanos() {
    return System.nanoTime() - storedAtNanos;
  }

  /** Whether the caller is the one read that refreshes this entry (at most one at a time). */
  boolean claimRefresh() {
    return refreshing == 0 && REFRESHING.compareAndSet(this, 0, 1);
  }

  /** The refresh ended without a new entry: a later read may try again. */
  void refreshEnded() {
    refreshing = 0;
  }

  /** A copy the caller owns. */
  public Object freshRaw() {
    return ReplySnapshots.thaw(frozen);
  }

  /**
   * The stored reply itself, for adapters that only read it (a reply tape replayed into a client's
   * decoder, which builds the caller's own objects). Must never be modified or handed to the
   * application.
   */
  public Object shared() {
    return frozen;
  }

  long[] stamp() {
    return stamp;
  }

  int weight() {
    return weight;
  }
}
