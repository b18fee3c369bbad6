package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * The local copy of hot keys' replies, as the gateways use it. {@link CaffeineNearCache} is the
 * cache; {@link #DISABLED} is what the gateways get when {@code hotkey.cache.enabled=false}: it
 * never answers and never fills, so every read goes to Redis while commands are still counted and
 * hot keys still reported.
 */
public interface NearCache {
  /** Never serves, never fills, counts nothing. */
  NearCache DISABLED = new DisabledNearCache();

  /**
   * Looks up a hot entry. Returns a {@link CachedReply} to serve, a {@link ReadFill} this thread
   * must complete with {@link #complete} or {@link #abandon}, or null: ask Redis and do not fill.
   */
  Object lookup(CacheKey key, int[] keyHashes);

  /**
   * Like {@link #lookup} but never blocks, for callers whose thread must not wait (multiplexed
   * clients). Returns a {@link CachedReply}, a {@link ReadFill}, the {@link ParkedReads} of a fill
   * on its way that the read may wait behind (see {@link #park}), or null: ask Redis and do not
   * fill.
   */
  Object lookupNoWait(CacheKey key, int[] keyHashes);

  /**
   * Stores the value a write just set, as the reply of the read that would return it, under a stamp
   * taken after the write's own invalidation: the caller has checked that no other write to the
   * keys was applied or answered while the write was in flight.
   *
   * @param node the server the write went to (whose tracking must cover the keys), or null when the
   *     client could not tell
   */
  void putWritten(RedisEndpoint node, CacheKey key, Object raw, int[] keyHashes, long[] stamp);

  /** See {@link FillGate#expectEcho}; null when the cache is off or nothing reports writes. */
  OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key);

  /**
   * Parks a read on a running fill's queue (from {@link #lookupNoWait}); a refused read is a miss.
   *
   * @param hotKeys the read counters of its keys, counted when it is handed back
   */
  boolean park(ParkedReads parked, Object connection, Object command, HotKeyReads[] hotKeys);

  /**
   * Counts a read a {@link ParkedReads} queue handed back, as its adapter takes it, in the cache's
   * figures and in its keys' {@link HotKeyReads}: a hit if it is answered locally, else a miss.
   */
  void countResumed(Resumption read, boolean answered);

  /** Tells each server which of its keys were answered locally since the last call. */
  void touchServed();

  /** Drops the entries too old to answer any read, stale or not. */
  void dropExpired();

  /** The largest reply an entry may hold. */
  long maxEntryBytes();

  /**
   * Stores the reply Redis gave the fill's reader, unless it is uncacheable, too big, or already
   * outdated.
   */
  void complete(ReadFill fill, Object raw);

  /** Ends a fill without a reply (the read failed): waiters go to Redis themselves. */
  void abandon(ReadFill fill);

  long hits();

  long misses();

  long evictions();

  long bytes();

  /**
   * The entry that answers a read which failed on its connection: one no older than the serve-stale
   * bound whose keys nothing changed since it was read (a lost invalidation stream does not count,
   * a write or an invalidation does); null when there is none.
   */
  CachedReply stale(CacheKey key, int[] keyHashes);

  /** Whether {@link #stale} can ever answer: {@code hotkey.cache.serve-stale-on-error} is set. */
  boolean servesStale();

  /** Reads answered with an entry {@link #stale} returned for another read (parked behind it). */
  void countStale(int reads);

  /** Reads chosen to refresh an entry ahead of its expiry. */
  long refreshes();

  /** Reads answered by {@link #stale}. */
  long staleServed();

  /** Entries held, as Caffeine estimates them. */
  long entries();
}
