package io.hotkey.agent.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CaffeineNearCacheTest {
  private final KeyVersions versions = new KeyVersions();
  private final CaffeineNearCache cache =
      new CaffeineNearCache(
          1 << 20,
          64 << 10,
          Duration.ofSeconds(30),
          0,
          Duration.ZERO,
          versions,
          FillGate.OPEN,
          KeysWithoutTtl.INSTANCE,
          KeysWithoutTtl.INSTANCE);

  private final AtomicLong clock = new AtomicLong();

  private CaffeineNearCache onTheClock(Duration ttl, double refreshAhead, Duration serveStale) {
    return new CaffeineNearCache(
        1 << 20,
        64 << 10,
        ttl,
        refreshAhead,
        serveStale,
        versions,
        FillGate.OPEN,
        KeysWithoutTtl.INSTANCE,
        KeysWithoutTtl.INSTANCE,
        clock::get);
  }

  private void advance(long millis) {
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static CacheKey key(String... argv) {
    byte[][] args = new byte[argv.length][];
    for (int i = 0; i < argv.length; i++) {
      args[i] = bytes(argv[i]);
    }
    return new CacheKey("127.0.0.1:6379/db0/resp2", 0, args, 0, new int[0]);
  }

  private Object fill(CacheKey key, int hash, Object raw) {
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {hash}));
    cache.complete(fill, raw);
    return cache.lookup(key, new int[] {hash});
  }

  @Test
  void hitsAreFreshDeepCopiesEqualToTheReply() {
    List<Object> raw = List.of(bytes("a"), List.of(bytes("b"), 7L), 2.5d);
    CachedReply hit =
        assertInstanceOf(CachedReply.class, fill(key("LRANGE", "k", "0", "-1"), 1, raw));

    List<?> first = (List<?>) hit.freshRaw();
    List<?> second = (List<?>) hit.freshRaw();
    assertNotSame(first, second);
    assertNotSame(first.get(0), second.get(0));
    assertArrayEquals(bytes("a"), (byte[]) first.get(0));
    assertArrayEquals(bytes("b"), (byte[]) ((List<?>) first.get(1)).get(0));
    assertEquals(7L, ((List<?>) first.get(1)).get(1));
    assertEquals(2.5d, first.get(2));
    ((byte[]) first.get(0))[0] = 'z';
    assertArrayEquals(bytes("a"), (byte[]) ((List<?>) hit.freshRaw()).get(0));
  }

  @Test
  void nilRepliesAreCachedAsNil() {
    CachedReply hit = assertInstanceOf(CachedReply.class, fill(key("GET", "missing"), 1, null));
    assertNull(hit.freshRaw());
  }

  @Test
  void aWriteDuringTheFillKeepsItsReplyOutOfTheCache() {
    CacheKey key = key("GET", "k");
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {5}));
    versions.bump(5);
    cache.complete(fill, bytes("old"));
    assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {5}));
  }

  @Test
  void aWriteAfterTheFillKillsTheEntry() {
    CacheKey key = key("GET", "k");
    assertInstanceOf(CachedReply.class, fill(key, 5, bytes("v1")));
    versions.bump(5);
    assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {5}));
  }

  @Test
  void bumpAllKillsEveryEntry() {
    assertInstanceOf(CachedReply.class, fill(key("GET", "a"), 1, bytes("1")));
    versions.bumpAll();
    assertInstanceOf(ReadFill.class, cache.lookup(key("GET", "a"), new int[] {1}));
  }

  @Test
  void multiKeyEntriesDieWhenAnyOfTheirKeysIsWritten() {
    CacheKey key = key("MGET", "a", "b");
    int[] hashes = {1, 2};
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, hashes));
    cache.complete(fill, List.of(bytes("1"), bytes("2")));
    assertInstanceOf(CachedReply.class, cache.lookup(key, hashes));
    versions.bump(2);
    assertInstanceOf(ReadFill.class, cache.lookup(key, hashes));
  }

  @Test
  void repliesOverThePerEntryCapOrOfUnknownShapeAreNotCached() {
    assertInstanceOf(ReadFill.class, fill(key("GET", "big"), 1, new byte[128 << 10]));
    assertInstanceOf(
        ReadFill.class, fill(key("GET", "odd"), 2, "a String is not a raw RESP2 reply"));
    assertInstanceOf(
        ReadFill.class,
        fill(key("LRANGE", "mixed", "0", "1"), 3, List.of(bytes("x"), new Object())));
  }

  @Test
  void theCacheStaysWithinItsByteBound() {
    CaffeineNearCache small =
        new CaffeineNearCache(
            256 << 10,
            16 << 10,
            Duration.ofSeconds(30),
            0,
            Duration.ZERO,
            versions,
            FillGate.OPEN,
            KeysWithoutTtl.INSTANCE,
            KeysWithoutTtl.INSTANCE);
    for (int i = 0; i < 1_000; i++) {
      CacheKey key = key("GET", "k" + i);
      ReadFill fill = assertInstanceOf(ReadFill.class, small.lookup(key, new int[] {i}));
      small.complete(fill, new byte[4096]);
    }
    assertTrue(small.bytes() <= 256 << 10, "bytes " + small.bytes());
    assertTrue(small.evictions() > 0);
  }

  @Test
  void pastTheRefreshShareOneReadRefreshesWhileTheOthersAreStillServed() {
    CaffeineNearCache refreshing = onTheClock(Duration.ofMillis(400), 0.5, Duration.ZERO);
    CacheKey key = key("GET", "k");
    int[] hashes = {1};
    refreshing.complete(
        assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes)), bytes("v1"));
    assertInstanceOf(CachedReply.class, refreshing.lookup(key, hashes), "young: served");
    advance(250);
    ReadFill refresh = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    // while the refresh runs, every other read (blocking or not) is answered by the entry
    CachedReply during = assertInstanceOf(CachedReply.class, refreshing.lookup(key, hashes));
    assertArrayEquals(bytes("v1"), (byte[]) during.freshRaw());
    assertInstanceOf(CachedReply.class, refreshing.lookupNoWait(key, hashes));
    refreshing.complete(refresh, bytes("v2"));
    CachedReply after = assertInstanceOf(CachedReply.class, refreshing.lookup(key, hashes));
    assertArrayEquals(bytes("v2"), (byte[]) after.freshRaw());
    assertEquals(1, refreshing.refreshes());
    // past the first value's TTL the entry is alive: the next old-enough read refreshes it again
    // rather than finding it expired
    advance(200);
    assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    assertEquals(2, refreshing.refreshes());
  }

  @Test
  void aRefreshThatRacesAWriteIsDiscardedAndAFailedOneCanBeRetried() {
    CaffeineNearCache refreshing = onTheClock(Duration.ofMillis(400), 0.5, Duration.ZERO);
    CacheKey key = key("GET", "k");
    int[] hashes = {2};
    refreshing.complete(
        assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes)), bytes("v1"));
    advance(250);
    ReadFill failed = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    refreshing.abandon(failed);
    ReadFill retried = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    versions.bump(2); // a write lands while the refresh is on its way
    refreshing.complete(retried, bytes("v-before-the-write"));
    assertInstanceOf(
        ReadFill.class, refreshing.lookup(key, hashes), "neither the old nor the raced value");
  }

  @Test
  void entriesExpireAfterTheTtl() {
    CaffeineNearCache shortLived = onTheClock(Duration.ofMillis(50), 0, Duration.ZERO);
    CacheKey key = key("GET", "k");
    shortLived.complete(
        assertInstanceOf(ReadFill.class, shortLived.lookup(key, new int[] {1})), bytes("v"));
    advance(50);
    assertInstanceOf(CachedReply.class, shortLived.lookup(key, new int[] {1}), "50 ms old");
    advance(1);
    assertInstanceOf(ReadFill.class, shortLived.lookup(key, new int[] {1}), "51 ms old");
  }

  @Test
  void expiredEntriesAreDroppedAndServingStaleKeepsThemItsLonger() {
    CaffeineNearCache plain = onTheClock(Duration.ofMillis(50), 0, Duration.ZERO);
    CaffeineNearCache stale = onTheClock(Duration.ofMillis(50), 0, Duration.ofMillis(500));
    for (CaffeineNearCache cache : List.of(plain, stale)) {
      CacheKey key = key("GET", "k");
      cache.complete(
          assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {1})), bytes("v"));
    }
    advance(50);
    plain.dropExpired();
    assertEquals(1, plain.entries(), "within the TTL: kept");
    advance(1);
    plain.dropExpired();
    stale.dropExpired();
    assertEquals(0, plain.entries(), "past the TTL: dropped");
    assertEquals(1, stale.entries(), "past the TTL but within serve-stale: kept");
    assertInstanceOf(CachedReply.class, stale.stale(key("GET", "k"), new int[] {1}));
    advance(450);
    stale.dropExpired();
    assertEquals(0, stale.entries(), "past serve-stale: dropped");
  }

  @Test
  void concurrentMissesShareOneFill() throws Exception {
    CacheKey key = key("GET", "hot");
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {9}));
    int readers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(readers);
    CountDownLatch started = new CountDownLatch(readers);
    List<Future<Object>> results = new ArrayList<>();
    for (int i = 0; i < readers; i++) {
      results.add(
          pool.submit(
              () -> {
                started.countDown();
                return cache.lookup(key, new int[] {9});
              }));
    }
    started.await();
    Thread.sleep(50);
    cache.complete(fill, bytes("v"));
    for (Future<Object> result : results) {
      CachedReply reply = assertInstanceOf(CachedReply.class, result.get(5, TimeUnit.SECONDS));
      assertArrayEquals(bytes("v"), (byte[]) reply.freshRaw());
    }
    pool.shutdown();
    assertEquals(1, cache.misses());
  }

  @Test
  void aReaderThatStartedAfterAWriteDoesNotTakeAnOlderFill() {
    CacheKey key = key("GET", "hot");
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {9}));
    versions.bump(9);
    // the running fill may carry the pre-write value: this reader must ask Redis itself, at once
    assertNull(cache.lookup(key, new int[] {9}));
    cache.abandon(fill);
  }

  @Test
  void anAbandonedFillReleasesItsWaitersAndTheKeyCanFillAgain() throws Exception {
    CacheKey key = key("GET", "hot");
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {9}));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<Object> waiter = pool.submit(() -> cache.lookup(key, new int[] {9}));
    Thread.sleep(50);
    cache.abandon(fill);
    assertNull(waiter.get(5, TimeUnit.SECONDS));
    pool.shutdown();
    assertInstanceOf(ReadFill.class, cache.lookup(key, new int[] {9}));
  }
}
