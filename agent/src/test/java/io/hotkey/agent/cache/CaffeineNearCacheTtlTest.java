package io.hotkey.agent.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** An entry is served only once its keys' TTL is known, and never past it. */
class CaffeineNearCacheTtlTest {
  /** The questions the cache asked, answered by the test as Redis would. */
  private static final class AskedTtls implements RemainingTtls {
    final List<Answer> asked = new ArrayList<>();

    @Override
    public boolean ask(RedisEndpoint node, byte[][] keys, Answer answer) {
      asked.add(answer);
      return true;
    }
  }

  private final KeyVersions versions = new KeyVersions();
  private final AskedTtls ttls = new AskedTtls();
  private final CaffeineNearCache cache =
      new CaffeineNearCache(
          1 << 20,
          64 << 10,
          Duration.ofSeconds(30),
          0,
          Duration.ofSeconds(30),
          versions,
          FillGate.OPEN,
          ttls);
  private final CacheKey key =
      new CacheKey(
          "127.0.0.1:6379/db0/resp2", new byte[][] {bytes("GET"), bytes("k")}, 0b10, new int[] {7});
  private final int[] hashes = {7};

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private void fill(String value) {
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, hashes));
    cache.complete(fill, bytes(value));
  }

  @Test
  void anEntryIsNotServedBeforeItsTtlIsAnswered() {
    fill("v");
    assertEquals(1, ttls.asked.size());
    assertNull(cache.lookupNoWait(key, hashes), "unknown TTL: to Redis, without a fill");
    assertNull(cache.stale(key, hashes), "nor answered stale");

    ttls.asked.get(0).answered(System.nanoTime(), TimeUnit.MINUTES.toMillis(1));
    assertInstanceOf(CachedReply.class, cache.lookup(key, hashes));
    assertInstanceOf(CachedReply.class, cache.lookupNoWait(key, hashes));
  }

  @Test
  void aBlockingReadWaitsForTheTtlInFlightInsteadOfAskingRedis() throws InterruptedException {
    fill("v");
    AtomicReference<Object> read = new AtomicReference<>();
    Thread reader = new Thread(() -> read.set(cache.lookup(key, hashes)));
    reader.start();
    while (reader.getState() != Thread.State.TIMED_WAITING) {
      assertTrue(reader.isAlive(), () -> "the read did not wait for the TTL: " + read.get());
      Thread.onSpinWait();
    }
    ttls.asked.get(0).answered(System.nanoTime(), TimeUnit.MINUTES.toMillis(1));
    reader.join(TimeUnit.SECONDS.toMillis(10));
    assertInstanceOf(CachedReply.class, read.get());
  }

  @Test
  void aQuestionWithoutAnswerNeitherServesNorHoldsReaders() {
    fill("v");
    ttls.asked.get(0).unanswered();
    assertNull(cache.lookup(key, hashes), "to Redis at once, without a fill");
    assertEquals(1, ttls.asked.size());
  }

  @Test
  void anEntryPastItsKeysTtlIsFilledAgainAndNotAnsweredStale() {
    fill("v");
    // asked 2 s ago, 1 s left then: past its TTL now, however long the answer took
    ttls.asked.get(0).answered(System.nanoTime() - TimeUnit.SECONDS.toNanos(2), 1000);
    assertNull(cache.stale(key, hashes));
    assertInstanceOf(ReadFill.class, cache.lookup(key, hashes));
  }

  @Test
  void aKeyGoneSinceTheReadIsNotServed() {
    fill("v");
    ttls.asked.get(0).answered(System.nanoTime(), RemainingTtls.MISSING);
    assertInstanceOf(ReadFill.class, cache.lookupNoWait(key, hashes));
  }

  @Test
  void aKeyWithoutTtlIsNotAskedAgainUntilItChanges() {
    // every read past the first refreshes the entry, a fill under an unchanged stamp
    CaffeineNearCache refreshing =
        new CaffeineNearCache(
            1 << 20,
            64 << 10,
            Duration.ofSeconds(30),
            1e-9,
            Duration.ZERO,
            versions,
            FillGate.OPEN,
            ttls);
    ReadFill first = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    refreshing.complete(first, bytes("v1"));
    ttls.asked.get(0).answered(System.nanoTime(), RemainingTtls.NO_TTL);

    ReadFill refresh = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    refreshing.complete(refresh, bytes("v1"));
    assertEquals(1, ttls.asked.size(), "known without a TTL under an unchanged stamp");
    // current and known without a TTL, so refreshed again
    refreshing.abandon(assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes)));

    versions.bump(hashes[0]); // a write or an invalidation of the key: asked again
    ReadFill afterWrite = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    refreshing.complete(afterWrite, bytes("v2"));
    assertEquals(2, ttls.asked.size());
    assertNull(refreshing.lookupNoWait(key, hashes), "not served until answered");
  }

  @Test
  void aRefreshedEntryAnswersUntilItsReplacementsTtlIsKnown() {
    CaffeineNearCache refreshing =
        new CaffeineNearCache(
            1 << 20,
            64 << 10,
            Duration.ofSeconds(30),
            1e-9,
            Duration.ZERO,
            versions,
            FillGate.OPEN,
            ttls);
    ReadFill first = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    refreshing.complete(first, bytes("v1"));
    ttls.asked.get(0).answered(System.nanoTime(), TimeUnit.MINUTES.toMillis(1));
    // any age is old enough to refresh: the next read refreshes the entry
    ReadFill refresh = assertInstanceOf(ReadFill.class, refreshing.lookup(key, hashes));
    CachedReply older = refresh.refreshing;
    refreshing.complete(refresh, bytes("v1"));
    assertEquals(2, ttls.asked.size(), "a key with a TTL is asked at every fill");

    assertEquals(older, refreshing.lookupNoWait(key, hashes), "the refreshed entry answers");
    versions.bump(hashes[0]);
    assertInstanceOf(
        ReadFill.class, refreshing.lookupNoWait(key, hashes), "unless its key changed");
  }
}
