package io.hotkey.agent.tracking;

import static io.hotkey.agent.tracking.TrackingServers.await;
import static io.hotkey.agent.tracking.TrackingServers.call;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.CaffeineNearCache;
import io.hotkey.agent.cache.FillGate;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.KeysWithoutTtl;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespDecoder;
import io.hotkey.agent.redis.resp.RespPush;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Threads about to serve a hit drain the tracking connection when its last drain is older than the
 * budget: against a real server, with the drain's reader thread never started (as if the scheduler
 * never gave it a core), and the budget measured on a clock the test moves.
 */
class InvalidationDrainTest {
  private static final long BUDGET = InvalidationDrains.BUDGET_NANOS;
  private static final String KEY = "product:1";
  private static final int[] HASHES = {KeyHashes.hash(bytes(KEY))};
  private static final Duration NEVER_BLOCKS = Duration.ofSeconds(5);

  private final AtomicLong clock = new AtomicLong();
  private final KeyVersions versions = new KeyVersions();
  private final InvalidationDrains drains = new InvalidationDrains(clock::get);

  @Test
  void aHitDrainsNothingWithinTheBudgetAndAppliesWhatArrivedOncePastIt() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection tracked = trackingConnection(redis);
        RespConnection witness = trackingConnection(redis);
        RespConnection writer = TrackingServers.connect(redis)) {
      open(tracked, null);
      long[] stamp = versions.stamp(HASHES);

      call(writer, "SET", KEY, "v2");
      // the same report, sent to another connection in the same event-loop turn, has arrived
      assertInstanceOf(RespPush.class, witness.read());
      clock.addAndGet(BUDGET);
      assertTrue(drains.caughtUp(clock.get()), "the last drain is within the budget");
      assertTrue(versions.isCurrent(stamp, HASHES), "within the budget nothing is read");

      await(
          "the report applied by a hit past the budget",
          () -> {
            clock.addAndGet(BUDGET + 1);
            return drains.caughtUp(clock.get()) && !versions.isCurrent(stamp, HASHES);
          });
      assertEquals(1, drains.helped());
    }
  }

  @Test
  void aHitNeverBlocksOnAnEmptySocket() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection tracked = trackingConnection(redis)) {
      open(tracked, null);
      assertTimeoutPreemptively(
          NEVER_BLOCKS,
          () -> {
            for (int i = 0; i < 100; i++) {
              clock.addAndGet(BUDGET + 1);
              assertTrue(drains.caughtUp(clock.get()), "an empty socket is caught up");
            }
          },
          "a blocking read of the empty socket would never return");
      assertEquals(0, drains.helped());
    }
  }

  @Test
  void aReportAppliedByAHitDiscardsAFillThatReadTheValueBeforeIt() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      call(writer, "SET", KEY, "v1");
      try (RespConnection tracked = trackingConnection(redis)) {
        open(tracked, null);
        CaffeineNearCache cache = cacheAskingDrains();
        CacheKey get =
            new CacheKey(
                "127.0.0.1/db0/resp3", 0, new byte[][] {bytes("GET"), bytes(KEY)}, 0, new int[0]);
        ReadFill fill = assertInstanceOf(ReadFill.class, cache.lookup(get, HASHES));
        Object readBeforeTheWrite = call(writer, "GET", KEY);

        call(writer, "SET", KEY, "v2");
        await(
            "another reader applied the report",
            () -> {
              clock.addAndGet(BUDGET + 1);
              Object unused = cache.lookupNoWait(get, HASHES);
              return drains.helped() == 1;
            });
        cache.complete(fill, readBeforeTheWrite);

        Object next = cache.lookup(get, HASHES);
        assertFalse(
            next instanceof CachedReply, "the fill that read v1 before the write never lands");
        ReadFill refill = assertInstanceOf(ReadFill.class, next);
        cache.complete(refill, call(writer, "GET", KEY));
        CachedReply hit = assertInstanceOf(CachedReply.class, cache.lookup(get, HASHES));
        assertArrayEquals(bytes("v2"), (byte[]) hit.freshRaw());
      }
    }
  }

  @Test
  void oneThreadDrainsAtATimeAndAHitFindingAnotherDrainingDoesNotWaitNorServe() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection tracked = trackingConnection(redis);
        RespConnection writer = TrackingServers.connect(redis)) {
      CountDownLatch applying = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      open(tracked, new Pause(applying, release));
      long[] stamp = versions.stamp(HASHES);
      call(writer, "SET", KEY, "v2");
      clock.addAndGet(BUDGET + 1);

      CompletableFuture<Boolean> first =
          CompletableFuture.supplyAsync(
              () -> {
                boolean caughtUp = drains.caughtUp(clock.get());
                while (!caughtUp || applying.getCount() > 0) {
                  clock.addAndGet(BUDGET + 1);
                  caughtUp = drains.caughtUp(clock.get());
                }
                return caughtUp;
              });
      assertTrue(applying.await(10, TimeUnit.SECONDS), "the first hit reads the report");
      assertTimeoutPreemptively(
          NEVER_BLOCKS,
          () ->
              assertFalse(
                  drains.caughtUp(clock.get()),
                  "another thread is draining: not served, not waited"),
          "a hit waited for the thread draining");
      assertTrue(
          versions.isCurrent(stamp, HASHES), "the report is applied by the first thread only");

      release.countDown();
      assertTrue(first.get(10, TimeUnit.SECONDS));
      assertFalse(versions.isCurrent(stamp, HASHES));
      assertTrue(drains.caughtUp(clock.get()), "the first thread's drain is current");
      assertEquals(1, drains.helped());
      assertEquals(1, drains.notCaughtUp());
    }
  }

  @Test
  void aMessageSplitAcrossReadsIsDecodedOnceComplete() throws IOException {
    InvalidationDrain.ReceivedBytes received = new InvalidationDrain.ReceivedBytes();
    RespDecoder decoder = new RespDecoder(received);
    byte[] push = bytes(">2\r\n$10\r\ninvalidate\r\n*1\r\n$9\r\nproduct:1\r\n");
    for (int split = 1; split < push.length; split++) {
      received.append(push, split);
      received.mark();
      assertThrows(InvalidationDrain.ReceivedBytes.Incomplete.class, decoder::next);
      received.backToMark();
      byte[] rest = new byte[push.length - split];
      System.arraycopy(push, split, rest, 0, rest.length);
      received.append(rest, rest.length);
      RespPush message = assertInstanceOf(RespPush.class, decoder.next());
      assertEquals("invalidate", message.kind());
      assertEquals(0, received.available());
      received.compact();
    }
  }

  /** Applies reports as the tracking does: each key's version is bumped. */
  private void open(RespConnection tracked, Pause pause) throws IOException {
    drains.open(
        tracked,
        new InvalidationDrain.Messages() {
          @Override
          public void onMessage(Object message) {
            if (pause != null) {
              pause.hold();
            }
            if (message instanceof RespPush push && push.kind().equals("invalidate")) {
              for (Object key : (List<?>) push.items().get(1)) {
                versions.bump(KeyHashes.hash((byte[]) key));
              }
            }
          }

          @Override
          public void onFailed(Exception failure) {
            throw new AssertionError("the stream failed", failure);
          }
        });
  }

  /** Holds the thread handing on a message until released. */
  private static final class Pause {
    private final CountDownLatch applying;
    private final CountDownLatch release;

    Pause(CountDownLatch applying, CountDownLatch release) {
      this.applying = applying;
      this.release = release;
    }

    void hold() {
      applying.countDown();
      try {
        assertTrue(release.await(10, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private CaffeineNearCache cacheAskingDrains() {
    FillGate gate =
        new FillGate() {
          @Override
          public boolean admits(RedisEndpoint node, byte[][] keys) {
            return true;
          }

          @Override
          public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
            return null;
          }

          @Override
          public boolean caughtUp(long nowNanos) {
            return drains.caughtUp(clock.get());
          }
        };
    return new CaffeineNearCache(
        1 << 20,
        64 << 10,
        Duration.ofSeconds(30),
        0,
        Duration.ZERO,
        versions,
        gate,
        KeysWithoutTtl.INSTANCE,
        KeysWithoutTtl.INSTANCE);
  }

  /** A RESP3 connection tracking every key that starts with {@code product:}. */
  private static RespConnection trackingConnection(RedisProcess redis) throws IOException {
    RespConnection connection =
        new RespConnection(TrackingServers.endpoint(redis), 2000, 2000, true);
    call(connection, "HELLO", "3");
    call(connection, "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "product:");
    return connection;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
