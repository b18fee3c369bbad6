package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A frozen reply with the invalidation stamp it was read under (see {@link KeyVersions}) and what
 * is known of its keys' Redis TTL: an entry is served only once that is known, and never past it.
 */
public final class CachedReply {
  /** The keys' TTL has not been answered yet: the entry is not served. */
  static final int TTL_UNKNOWN = 0;

  /** No key of the entry has a TTL: only {@code hotkey.cache.ttl} bounds it. */
  static final int NO_TTL = 1;

  /** The entry is served until {@link #expiresAtNanos}. */
  static final int EXPIRES = 2;

  private final Object frozen;
  private final long[] stamp;
  private final int weight;
  private final long storedAtNanos;

  /** The server the reply was read from (or written to); null when the client could not tell. */
  private final RedisEndpoint node;

  /** Whether a read was answered from the entry since the last touch round. */
  private volatile boolean served;

  /** Written before {@link #ttlState} is set to {@link #EXPIRES}, which publishes it. */
  private long expiresAtNanos;

  private volatile int ttlState = TTL_UNKNOWN;

  /**
   * Released when the TTL question is answered or known to get no answer; null when none was asked.
   * Set before the question is queued and the entry published, which both make it visible.
   */
  private CountDownLatch ttlSettled;

  /**
   * The entry this one refreshed ahead of its expiry, which answers reads until this one's TTL is
   * known; cleared then.
   */
  private volatile CachedReply refreshed;

  /** 1 once a read was chosen to refresh this entry ahead of its expiry. */
  private volatile int refreshing;

  private static final AtomicIntegerFieldUpdater<CachedReply> REFRESHING =
      AtomicIntegerFieldUpdater.newUpdater(CachedReply.class, "refreshing");

  CachedReply(Object frozen, long[] stamp, int weight, RedisEndpoint node, long storedAtNanos) {
    this.frozen = frozen;
    this.storedAtNanos = storedAtNanos;
    this.stamp = stamp;
    this.weight = weight;
    this.node = node;
  }

  RedisEndpoint node() {
    return node;
  }

  /** Written once per round however many reads it answers, so hits do not contend on it. */
  void markServed() {
    if (!served) {
      served = true;
    }
  }

  /** Whether a read was answered since the last call. */
  boolean takeServed() {
    if (!served) {
      return false;
    }
    served = false;
    return true;
  }

  long ageNanos(long nowNanos) {
    return nowNanos - storedAtNanos;
  }

  /**
   * How the keys' TTL bounds the entry: {@link #TTL_UNKNOWN}, {@link #NO_TTL} or {@link #EXPIRES}.
   */
  int ttlState() {
    return ttlState;
  }

  /** Whether an entry in state {@link #EXPIRES} may still be served at {@code nowNanos}. */
  boolean liveAt(long nowNanos) {
    return expiresAtNanos - nowNanos > 0;
  }

  /** Whether the entry may be served at {@code nowNanos}, as far as its keys' TTL goes. */
  boolean withinTtl(long nowNanos) {
    int state = ttlState;
    return state == NO_TTL || (state == EXPIRES && liveAt(nowNanos));
  }

  void noTtl() {
    ttlState = NO_TTL;
    refreshed = null;
    settle();
  }

  void expiresAt(long nanos) {
    expiresAtNanos = nanos;
    ttlState = EXPIRES;
    refreshed = null;
    settle();
  }

  /** The keys' TTL is about to be asked: blocking readers may wait for the answer. */
  void askingTtl() {
    ttlSettled = new CountDownLatch(1);
  }

  /** The question will get no answer: the entry stays unserved and nobody waits for it. */
  void ttlUnanswered() {
    settle();
  }

  private void settle() {
    CountDownLatch settled = ttlSettled;
    if (settled != null) {
      settled.countDown();
    }
  }

  /**
   * Waits until the keys' TTL question is settled, at most {@code timeoutNanos}.
   *
   * @return whether it settled (answered or known unanswerable), so the entry is worth reading
   *     again
   */
  boolean awaitTtl(long timeoutNanos) {
    CountDownLatch settled = ttlSettled;
    if (settled == null) {
      return false;
    }
    try {
      return settled.await(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void refreshes(CachedReply older) {
    refreshed = older;
  }

  /** The entry this one refreshed, while this one's TTL is unknown; else null. */
  CachedReply refreshed() {
    return refreshed;
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
