package io.hotkey.agent.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A reloaded byte bound and TTL reach the entries a running cache already holds. */
class CaffeineNearCacheResizeTest {
  private final AtomicLong clock = new AtomicLong();
  private final CaffeineNearCache cache =
      new CaffeineNearCache(
          1 << 20,
          64 << 10,
          Duration.ofSeconds(30),
          0,
          Duration.ZERO,
          new KeyVersions(),
          FillGate.OPEN,
          KeysWithoutTtl.INSTANCE,
          KeysWithoutTtl.INSTANCE,
          clock::get);

  private static CacheKey get(String key) {
    byte[][] argv = {"GET".getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8)};
    return new CacheKey("127.0.0.1:6379/db0/resp2", 0, argv, 0, new int[0]);
  }

  private void fill(String key, int hash) {
    CacheKey cacheKey = get(key);
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(cacheKey, new int[] {hash}));
    cache.complete(fill, new byte[1000]);
    assertInstanceOf(CachedReply.class, cache.lookup(cacheKey, new int[] {hash}));
  }

  @Test
  void aLowerBoundEvictsAtOnce() {
    for (int i = 0; i < 20; i++) {
      fill("k" + i, i);
    }
    assertEquals(20, cache.entries());
    cache.resize(4_000, Duration.ofSeconds(30));
    assertTrue(cache.bytes() <= 4_000, () -> cache.bytes() + " bytes");
    assertTrue(cache.entries() < 20 && cache.evictions() > 0, () -> cache.entries() + " entries");
  }

  @Test
  void aShorterTtlExpiresTheEntriesAlreadyHeld() {
    fill("k", 1);
    cache.resize(1 << 20, Duration.ofMillis(50));
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(51));
    assertInstanceOf(ReadFill.class, cache.lookup(get("k"), new int[] {1}));
  }
}
