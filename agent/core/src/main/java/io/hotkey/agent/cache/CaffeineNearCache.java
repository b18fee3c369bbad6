package io.hotkey.agent.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The local copy of hot keys' replies: Caffeine bounded in bytes, entries expiring after the
 * configured TTL or their keys' own Redis TTL, whichever comes first, a per-entry size cap,
 * single-flight fills and stamp-checked hits (see {@link KeyVersions} for why a hit is never older
 * than a returned write).
 *
 * <p>A new entry is served only once {@link RemainingTtls} has answered its keys' TTL, counted from
 * when the question was sent. Until then a blocking client's reads wait for the answer, as they
 * would for a running fill, and a non-blocking client's go to Redis without filling. Keys found
 * without a TTL are remembered under the fill's stamp, so their next fills ask nothing until a
 * write or an invalidation of the key (which {@code EXPIRE}, {@code PERSIST} and every {@code SET}
 * are) changes the stamp.
 */
public final class CaffeineNearCache implements NearCache {
  /** How long a reader waits for another thread's fill before asking Redis itself. */
  private static final long FILL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final int ENTRY_OVERHEAD = 96;

  /** {@link #answerHeld}: the entry is past its keys' TTL and is filled like a missing one. */
  private static final Object FILL_AGAIN = new Object();

  /** Keys remembered without a TTL; hot keys are far fewer, and a forgotten one is asked again. */
  private static final int KEYS_WITHOUT_TTL = 16_384;

  private final Cache<CacheKey, CachedReply> entries;
  private final ConcurrentHashMap<CacheKey, ReadFill> fills = new ConcurrentHashMap<>();
  private final FillGate gate;
  private final RemainingTtls ttls;
  private final ServedKeyTouches touches;

  /** Entries whose keys had no TTL, with the stamp they were filled under. */
  private final Cache<CacheKey, long[]> withoutTtl =
      Caffeine.newBuilder().executor(Runnable::run).maximumSize(KEYS_WITHOUT_TTL).build();

  private final KeyVersions versions;
  private final long maxEntryBytes;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder staleServed = new LongAdder();

  /** Entries are kept past the TTL, unserved but for errors, when serving stale allows longer. */
  private volatile long ttlNanos;

  private final long serveStaleNanos;

  /** Age past which a read refreshes its entry; {@code Long.MAX_VALUE} never. */
  private volatile long refreshAtNanos;

  private final double refreshAhead;

  private final LongAdder refreshes = new LongAdder();

  /**
   * {@link System#nanoTime}, read once per lookup: the entries' ages, their keys' TTL and the
   * tracking budget are all judged at that instant.
   */
  private final LongSupplier clock;

  /**
   * @param refreshAhead the share of the TTL past which one read refreshes an entry while the
   *     others are still served it; 0 never
   * @param serveStale how old an entry may be to answer a read that failed on its connection
   *     ({@link Duration#ZERO}: never)
   */
  public CaffeineNearCache(
      long maxBytes,
      long maxEntryBytes,
      Duration ttl,
      double refreshAhead,
      Duration serveStale,
      KeyVersions versions,
      FillGate gate,
      RemainingTtls ttls,
      ServedKeyTouches touches) {
    this(
        maxBytes,
        maxEntryBytes,
        ttl,
        refreshAhead,
        serveStale,
        versions,
        gate,
        ttls,
        touches,
        System::nanoTime);
  }

  CaffeineNearCache(
      long maxBytes,
      long maxEntryBytes,
      Duration ttl,
      double refreshAhead,
      Duration serveStale,
      KeyVersions versions,
      FillGate gate,
      RemainingTtls ttls,
      ServedKeyTouches touches,
      LongSupplier clock) {
    this.clock = clock;
    this.versions = versions;
    this.ttls = ttls;
    this.touches = touches;
    this.ttlNanos = ttl.toNanos();
    this.refreshAhead = refreshAhead;
    this.refreshAtNanos = refreshAt(ttlNanos);
    this.serveStaleNanos = serveStale.toNanos();
    this.gate = gate;
    this.maxEntryBytes = maxEntryBytes;
    this.entries =
        Caffeine.newBuilder()
            // maintenance on the caller's thread: the bound holds at once, and the agent never
            // queues work on the application's common ForkJoinPool (fills, the only writers, are
            // rare)
            .executor(Runnable::run)
            .maximumWeight(maxBytes)
            .weigher((CacheKey key, CachedReply reply) -> reply.weight())
            // no expiry policy: an entry's own age is checked at each read (one clock read for
            // the whole lookup), and dropExpired reclaims what is too old to answer anything
            .evictionListener(
                (CacheKey key, CachedReply reply, RemovalCause cause) -> {
                  // the meter counts entries pushed out by the byte bound
                  if (cause == RemovalCause.SIZE) {
                    evictions.increment();
                  }
                })
            .build();
  }

  /**
   * A reloaded byte bound and TTL: a lower bound evicts at once (through Caffeine's policy), a new
   * TTL applies to the entries already held as well.
   */
  public void resize(long maxBytes, Duration ttl) {
    entries.policy().eviction().ifPresent(eviction -> eviction.setMaximum(maxBytes));
    ttlNanos = ttl.toNanos();
    refreshAtNanos = refreshAt(ttlNanos);
  }

  @Override
  public void dropExpired() {
    long now = clock.getAsLong();
    long keepNanos = Math.max(ttlNanos, serveStaleNanos);
    entries.asMap().values().removeIf(reply -> reply.ageNanos(now) > keepNanos);
  }

  private long refreshAt(long ttl) {
    return refreshAhead > 0 ? (long) (ttl * refreshAhead) : Long.MAX_VALUE;
  }

  @Override
  public Object lookup(CacheKey key, int[] keyHashes) {
    long now = clock.getAsLong();
    if (!gate.caughtUp(now)) {
      misses.increment();
      return null;
    }
    CachedReply cached = current(key, keyHashes, now);
    if (cached != null
        && cached.ttlState() == CachedReply.TTL_UNKNOWN
        && cached.refreshed() == null
        && cached.awaitTtl(FILL_WAIT_NANOS)) {
      // a blocking reader waits for the TTL question in flight rather than add its read to Redis's
      now = clock.getAsLong();
      cached = current(key, keyHashes, now);
    }
    Object held = cached == null ? FILL_AGAIN : answerHeld(cached, key, keyHashes, now);
    if (held != FILL_AGAIN) {
      return held;
    }
    long[] stamp = versions.stamp(keyHashes);
    ReadFill fill = new ReadFill(key.ownCopy(), keyHashes, stamp, now);
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
  @Override
  public Object lookupNoWait(CacheKey key, int[] keyHashes) {
    long now = clock.getAsLong();
    if (!gate.caughtUp(now)) {
      misses.increment();
      return null;
    }
    CachedReply cached = current(key, keyHashes, now);
    Object held = cached == null ? FILL_AGAIN : answerHeld(cached, key, keyHashes, now);
    if (held != FILL_AGAIN) {
      return held;
    }
    long[] stamp = versions.stamp(keyHashes);
    ReadFill fill = new ReadFill(key.ownCopy(), keyHashes, stamp, now);
    ReadFill running = fills.putIfAbsent(fill.key, fill);
    if (running == null) {
      misses.increment();
      return fill;
    }
    if (running.startedBefore(now - FILL_WAIT_NANOS)) {
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

  @Override
  public void putWritten(
      RedisEndpoint node, CacheKey key, Object raw, int[] keyHashes, long[] stamp) {
    if (gate.admits(node, key.keys())) {
      // a plain SET leaves its key without a TTL
      store(node, key, raw, keyHashes, stamp, null, true);
    }
  }

  @Override
  public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
    return gate.expectEcho(node, key);
  }

  @Override
  public boolean park(
      ParkedReads parked, Object connection, Object command, HotKeyReads[] hotKeys) {
    if (parked.park(connection, command, hotKeys)) {
      return true;
    }
    misses.increment();
    return false;
  }

  @Override
  public void countResumed(Resumption read, boolean answered) {
    (answered ? hits : misses).increment();
    HotKeyReads.count(read.hotKeys, read.hotKeys.length, answered);
  }

  /**
   * The entry of {@code key} if it is still current and within the TTL at {@code now}, else null.
   */
  private CachedReply current(CacheKey key, int[] keyHashes, long now) {
    CachedReply cached = entries.getIfPresent(key);
    // An outdated entry is never served again; it stays until the fill's put replaces it (removing
    // it first would be a second write to the cache, its most expensive operation).
    if (cached != null
        && cached.ageNanos(now) <= ttlNanos
        && versions.isCurrent(cached.stamp(), keyHashes)) {
      return cached;
    }
    return null;
  }

  /**
   * What a current entry answers: the entry (or a fill refreshing it), null to ask Redis without
   * filling, or {@link #FILL_AGAIN} once its keys' TTL has passed.
   */
  private Object answerHeld(CachedReply cached, CacheKey key, int[] keyHashes, long now) {
    int ttlState = cached.ttlState();
    if (ttlState == CachedReply.NO_TTL || (ttlState == CachedReply.EXPIRES && cached.liveAt(now))) {
      return refreshOrServe(cached, key, keyHashes, now);
    }
    if (ttlState == CachedReply.TTL_UNKNOWN) {
      return whileTtlUnknown(cached, keyHashes, now);
    }
    return FILL_AGAIN;
  }

  /**
   * A new entry whose TTL is being asked: the entry it refreshed answers, if still current, young
   * enough and within its own TTL; otherwise the read goes to Redis (a fill would only ask again).
   */
  private Object whileTtlUnknown(CachedReply cached, int[] keyHashes, long now) {
    CachedReply older = cached.refreshed();
    if (older != null
        && older.ageNanos(now) <= ttlNanos
        && older.withinTtl(now)
        && versions.isCurrent(older.stamp(), keyHashes)) {
      hits.increment();
      cached.markServed();
      return older;
    }
    misses.increment();
    return null;
  }

  /**
   * A current entry answers the read, unless it is old enough to be refreshed ahead of its expiry
   * and this read is the one chosen to: it then goes to Redis as a fill, while every other read
   * keeps being answered by the entry until the fill replaces it. The fill's stamp is taken now, so
   * a write or an invalidation during the refresh discards it, as for any fill.
   */
  private Object refreshOrServe(CachedReply cached, CacheKey key, int[] keyHashes, long now) {
    if (refreshAtNanos != Long.MAX_VALUE
        && cached.ageNanos(now) >= refreshAtNanos
        && cached.claimRefresh()) {
      ReadFill fill = new ReadFill(key.ownCopy(), keyHashes, versions.stamp(keyHashes), now);
      fill.refreshing = cached;
      if (fills.putIfAbsent(fill.key, fill) == null) {
        refreshes.increment();
        misses.increment();
        return fill;
      }
      cached.refreshEnded();
    }
    hits.increment();
    cached.markServed();
    return cached;
  }

  /**
   * Touches, on each server, the keys of every entry served since the last round, each key once
   * however many reads it answered, so that Redis's eviction sees them read.
   */
  @Override
  public void touchServed() {
    Map<String, ServedOnNode> served = new HashMap<>();
    for (Map.Entry<CacheKey, CachedReply> entry : entries.asMap().entrySet()) {
      CachedReply reply = entry.getValue();
      byte[][] keys = entry.getKey().keys();
      RedisEndpoint node = reply.node();
      if (node == null || keys == null || !reply.takeServed()) {
        continue;
      }
      int database = entry.getKey().database();
      served
          .computeIfAbsent(
              node.host() + ":" + node.port() + "/" + database,
              n -> new ServedOnNode(node, database))
          .add(keys);
    }
    for (ServedOnNode group : served.values()) {
      touches.touch(group.node, group.database, new ArrayList<>(group.keys.values()));
    }
  }

  /** The keys served from one server's database in a round, each once. */
  private static final class ServedOnNode {
    final RedisEndpoint node;
    final int database;
    final Map<ByteBuffer, byte[]> keys = new LinkedHashMap<>();

    ServedOnNode(RedisEndpoint node, int database) {
      this.node = node;
      this.database = database;
    }

    void add(byte[][] entryKeys) {
      for (byte[] key : entryKeys) {
        keys.putIfAbsent(ByteBuffer.wrap(key), key);
      }
    }
  }

  @Override
  public long refreshes() {
    return refreshes.sum();
  }

  @Override
  public CachedReply stale(CacheKey key, int[] keyHashes) {
    CachedReply cached = entries.getIfPresent(key);
    long now = clock.getAsLong();
    if (cached == null
        || cached.ageNanos(now) > serveStaleNanos
        || !cached.withinTtl(now)
        || !versions.isUnchanged(cached.stamp(), keyHashes)) {
      return null;
    }
    staleServed.increment();
    return cached;
  }

  @Override
  public boolean servesStale() {
    return serveStaleNanos > 0;
  }

  @Override
  public void countStale(int reads) {
    staleServed.add(reads);
  }

  @Override
  public long staleServed() {
    return staleServed.sum();
  }

  @Override
  public long maxEntryBytes() {
    return maxEntryBytes;
  }

  @Override
  public void complete(ReadFill fill, Object raw) {
    try {
      if (!gate.admits(fill.node(), fill.key.keys())) {
        return;
      }
      CachedReply reply =
          store(fill.node(), fill.key, raw, fill.keyHashes, fill.stamp, fill.refreshing, false);
      if (reply != null) {
        fill.publish(reply);
      }
    } finally {
      abandon(fill);
    }
  }

  /**
   * Stores a reply unless outdated, and asks its keys' TTL unless known.
   *
   * @param refreshed the entry a fill refreshes ahead of its expiry, or null
   * @param setWithoutTtl the reply is a value the application just set with a plain SET, which
   *     leaves no TTL
   */
  private CachedReply store(
      RedisEndpoint node,
      CacheKey key,
      Object raw,
      int[] keyHashes,
      long[] stamp,
      CachedReply refreshed,
      boolean setWithoutTtl) {
    Object frozen = ReplySnapshots.freeze(raw, maxEntryBytes);
    if (frozen == ReplySnapshots.UNCACHEABLE) {
      return null;
    }
    long weight = ENTRY_OVERHEAD + key.weight() + ReplySnapshots.weigh(frozen);
    CachedReply reply =
        new CachedReply(
            frozen, stamp, (int) Math.min(weight, Integer.MAX_VALUE), node, clock.getAsLong());
    if (!versions.isCurrent(stamp, keyHashes)) {
      return null;
    }
    if (frozen == null) {
      // nil stays the right answer when a key expires (an expired key reads as nil); only a write
      // changes it, and writes invalidate
      reply.noTtl();
    } else if (setWithoutTtl) {
      reply.noTtl();
      withoutTtl.put(key, stamp);
    } else {
      long[] knownWithout = withoutTtl.getIfPresent(key);
      if (knownWithout != null && versions.isCurrent(knownWithout, keyHashes)) {
        reply.noTtl();
      } else {
        if (refreshed != null) {
          reply.refreshes(refreshed);
        }
        reply.askingTtl();
        if (!ttls.ask(node, key.database(), key.keys(), new TtlAnswer(key, reply, stamp))) {
          return null;
        }
      }
    }
    entries.put(key, reply);
    return reply;
  }

  /** Settles one entry's TTL as its keys' server answered. */
  private final class TtlAnswer implements RemainingTtls.Answer {
    private final CacheKey key;
    private final CachedReply reply;
    private final long[] stamp;

    TtlAnswer(CacheKey key, CachedReply reply, long[] stamp) {
      this.key = key;
      this.reply = reply;
      this.stamp = stamp;
    }

    @Override
    public void answered(long sentAtNanos, long leastRemainingMillis) {
      if (leastRemainingMillis == RemainingTtls.NO_TTL) {
        reply.noTtl();
        withoutTtl.put(key, stamp);
      } else if (leastRemainingMillis >= 0) {
        reply.expiresAt(sentAtNanos + TimeUnit.MILLISECONDS.toNanos(leastRemainingMillis));
      } else {
        // a key gone since the read (expired, deleted): the reply may be its last value
        reply.expiresAt(sentAtNanos);
      }
    }

    @Override
    public void unanswered() {
      reply.ttlUnanswered();
    }
  }

  @Override
  public void abandon(ReadFill fill) {
    fills.remove(fill.key, fill);
    if (fill.refreshing != null) {
      fill.refreshing.refreshEnded();
    }
    fill.release();
  }

  @Override
  public long hits() {
    return hits.sum();
  }

  @Override
  public long misses() {
    return misses.sum();
  }

  @Override
  public long evictions() {
    return evictions.sum();
  }

  @Override
  public long bytes() {
    return entries.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  @Override
  public long entries() {
    return entries.estimatedSize();
  }
}
