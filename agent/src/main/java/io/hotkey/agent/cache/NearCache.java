package io.hotkey.agent.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The local copy of hot keys' replies: Caffeine bounded in bytes, entries expiring after the
 * configured TTL, a per-entry size cap, single-flight fills and stamp-checked hits (see {@link
 * KeyVersions} for why a hit is never older than a returned write).
 */
public final class NearCache {
  /** How long a reader waits for another thread's fill before asking Redis itself. */
  private static final long FILL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final int ENTRY_OVERHEAD = 96;

  private final Cache<CacheKey, CachedReply> entries;
  private final ConcurrentHashMap<CacheKey, ReadFill> fills = new ConcurrentHashMap<>();
  private final KeyVersions versions;
  private final long maxEntryBytes;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder evictions = new LongAdder();

  public NearCache(long maxBytes, long maxEntryBytes, Duration ttl, KeyVersions versions) {
    this.versions = versions;
    this.maxEntryBytes = maxEntryBytes;
    this.entries =
        Caffeine.newBuilder()
            // maintenance on the caller's thread: the bound holds at once, and the agent never
            // queues
            // work on the application's common ForkJoinPool (fills, the only writers, are rare)
            .executor(Runnable::run)
            .maximumWeight(maxBytes)
            .weigher((CacheKey key, CachedReply reply) -> reply.weight())
            .expireAfterWrite(ttl)
            .evictionListener(
                (CacheKey key, CachedReply reply, RemovalCause cause) -> {
                  // expiry is the TTL doing its job; the meter counts entries pushed out by the
                  // byte bound
                  if (cause == RemovalCause.SIZE) {
                    evictions.increment();
                  }
                })
            .build();
  }

  /**
   * Looks up a hot entry. Returns a {@link CachedReply} to serve, a {@link ReadFill} this thread
   * must complete with {@link #complete} or {@link #abandon}, or null: ask Redis and do not fill.
   */
  public Object lookup(CacheKey key, int[] keyHashes) {
    CachedReply cached = current(key, keyHashes);
    if (cached != null) {
      return cached;
    }
    long[] stamp = versions.stamp(keyHashes);
    ReadFill fill = new ReadFill(key.ownCopy(), keyHashes, stamp);
    ReadFill running = fills.putIfAbsent(fill.key, fill);
    if (running == null) {
      misses.increment();
      return fill;
    }
    CachedReply shared = running.await(stamp, FILL_WAIT_NANOS);
    if (shared != null) {
      hits.increment();
    } else {
      misses.increment();
    }
    return shared;
  }

  /**
   * Like {@link #lookup} but never blocks, for callers whose thread must not wait (asynchronous
   * clients). When a fill of the entry is running and nothing was written to its keys since it
   * started, returns its {@link ParkedReads}: the caller may park its read there and answer it with
   * the fill's reply. That reply is one Redis could give the parked read even if the fill is never
   * stored (a write that lands meanwhile was not yet applied when the read was issued, or the
   * stamps would differ). Returns null when the caller must ask Redis and not fill. A fill that has
   * run longer than the wait a blocking reader would accept is presumed lost (its command failed
   * without a reply) and is replaced.
   */
  public Object lookupNoWait(CacheKey key, int[] keyHashes) {
    CachedReply cached = current(key, keyHashes);
    if (cached != null) {
      return cached;
    }
    long[] stamp = versions.stamp(keyHashes);
    ReadFill fill = new ReadFill(key.ownCopy(), keyHashes, stamp);
    ReadFill running = fills.putIfAbsent(fill.key, fill);
    if (running == null) {
      misses.increment();
      return fill;
    }
    if (running.startedBefore(System.nanoTime() - FILL_WAIT_NANOS)) {
      if (fills.replace(fill.key, running, fill)) {
        running.release();
        misses.increment();
        return fill;
      }
    } else if (Arrays.equals(running.stamp, stamp)) {
      return running.parked();
    }
    misses.increment();
    return null;
  }

  /**
   * Stores the value a write just set, as the reply of the read that would return it, under a stamp
   * taken after the write's own invalidation: the caller has checked that no other write to the
   * keys was applied or answered while the write was in flight.
   */
  public void putWritten(CacheKey key, Object raw, int[] keyHashes, long[] stamp) {
    store(key, raw, keyHashes, stamp);
  }

  /**
   * Parks a read on a running fill's queue (from {@link #lookupNoWait}); a refused read is a miss.
   */
  public boolean park(ParkedReads parked, Object connection, Object command) {
    if (parked.park(connection, command)) {
      return true;
    }
    misses.increment();
    return false;
  }

  /**
   * Counts the reads a {@link ParkedReads} queue handed back: hits if they got an answer, else
   * misses.
   */
  public void countResumed(java.util.List<Resumption> resumed) {
    for (Resumption read : resumed) {
      (read.answered() ? hits : misses).increment();
    }
  }

  /** The entry of {@code key} if it is still current (counted as a hit), else null. */
  private CachedReply current(CacheKey key, int[] keyHashes) {
    CachedReply cached = entries.getIfPresent(key);
    // An outdated entry is never served again; it stays until the fill's put replaces it (removing
    // it first would be a second write to the cache, its most expensive operation).
    if (cached != null && versions.isCurrent(cached.stamp(), keyHashes)) {
      hits.increment();
      return cached;
    }
    return null;
  }

  public long maxEntryBytes() {
    return maxEntryBytes;
  }

  /**
   * Stores the reply Redis gave the fill's reader, unless it is uncacheable, too big, or already
   * outdated.
   */
  public void complete(ReadFill fill, Object raw) {
    try {
      CachedReply reply = store(fill.key, raw, fill.keyHashes, fill.stamp);
      if (reply != null) {
        fill.publish(reply);
      }
    } finally {
      abandon(fill);
    }
  }

  private CachedReply store(CacheKey key, Object raw, int[] keyHashes, long[] stamp) {
    Object frozen = ReplySnapshots.freeze(raw, maxEntryBytes);
    if (frozen == ReplySnapshots.UNCACHEABLE) {
      return null;
    }
    long weight = ENTRY_OVERHEAD + key.weight() + ReplySnapshots.weigh(frozen);
    CachedReply reply =
        new CachedReply(frozen, keyHashes, stamp, (int) Math.min(weight, Integer.MAX_VALUE));
    if (!versions.isCurrent(stamp, keyHashes)) {
      return null;
    }
    entries.put(key, reply);
    return reply;
  }

  /** Ends a fill without a reply (the read failed): waiters go to Redis themselves. */
  public void abandon(ReadFill fill) {
    fills.remove(fill.key, fill);
    fill.release();
  }

  public void invalidateAll() {
    entries.invalidateAll();
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  public long evictions() {
    return evictions.sum();
  }

  public long bytes() {
    return entries.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  public long size() {
    return entries.estimatedSize();
  }
}
