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
  /** What the cache asked and touched on its servers; the test answers as Redis would. */
  private static final class OwnConnectionRecorder implements RemainingTtls, ServedKeyTouches {
    final List<Answer> asked = new ArrayList<>();
    final List<Integer> askedDatabases = new ArrayList<>();
    final List<String> touched = new ArrayList<>();

    @Override
    public boolean ask(RedisEndpoint node, int database, byte[][] keys, Answer answer) {
      asked.add(answer);
      askedDatabases.add(database);
      return true;
    }

    @Override
    public void touch(RedisEndpoint node, int database, List<byte[]> keys) {
      StringBuilder round = new StringBuilder(node.host() + ":" + node.port() + "/" + database);
      for (byte[] key : keys) {
        round.append(' ').append(new String(key, StandardCharsets.UTF_8));
      }
      touched.add(round.toString());
    }
  }

  private final KeyVersions versions = new KeyVersions();
  private final OwnConnectionRecorder ttls = new OwnConnectionRecorder();
  private final CaffeineNearCache cache =
      new CaffeineNearCache(
          1 << 20,
          64 << 10,
          Duration.ofSeconds(30),
          0,
          Duration.ofSeconds(30),
          versions,
          FillGate.OPEN,
          ttls,
          ttls);
  private final CacheKey key =
      new CacheKey(
          "127.0.0.1:6379/db0/resp2",
          0,
          new byte[][] {bytes("GET"), bytes("k")},
          0b10,
          new int[] {7});
  private final int[] hashes = {7};

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static final RedisEndpoint NODE = RedisEndpoint.of("127.0.0.1", 6379);

  private void fill(String value) {
    fill(key, value);
  }

  private void fill(CacheKey filled, String value) {
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(filled, hashes));
    fill.readThrough(NODE);
    cache.complete(fill, bytes(value));
  }

  @Test
  void theKeysTtlIsAskedInTheDatabaseItWasReadIn() {
    fill(
        new CacheKey(
            "127.0.0.1:6379/db3/resp2", 3, new byte[][] {bytes("GET"), bytes("k")}, 0b10, hashes),
        "v");
    assertEquals(List.of(3), ttls.askedDatabases);
  }

  @Test
  void aRoundTouchesEachKeyServedSinceTheLastOnceAndNothingElse() {
    fill("v");
    ttls.asked.get(0).answered(System.nanoTime(), RemainingTtls.NO_TTL);
    cache.touchServed();
    assertEquals(List.of(), ttls.touched, "filled, not yet served");

    for (int i = 0; i < 1000; i++) {
      assertInstanceOf(CachedReply.class, cache.lookup(key, hashes));
    }
    cache.touchServed();
    assertEquals(List.of("127.0.0.1:6379/0 k"), ttls.touched, "a thousand hits, one key touched");

    cache.touchServed();
    assertEquals(1, ttls.touched.size(), "nothing served since");
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
  void aMissingKeysNilIsServedWithoutAskingItsTtlUntilAWrite() {
    ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(key, hashes));
    fill.readThrough(NODE);
    cache.complete(fill, null);
    assertEquals(List.of(), ttls.asked, "nil is what the key reads as once it expired");
    assertInstanceOf(CachedReply.class, cache.lookupNoWait(key, hashes));

    versions.bump(hashes[0]); // a write or an invalidation of the key
    assertInstanceOf(ReadFill.class, cache.lookup(key, hashes), "a write ends it");
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
            ttls,
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
            ttls,
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
