package io.hotkey.agent.tracking;

import static io.hotkey.agent.tracking.TrackingServers.await;
import static io.hotkey.agent.tracking.TrackingServers.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redis' reports of the application's own writes, against a real server. The application's side is
 * played by the test: the write's own local invalidation is a bump of its key followed by {@link
 * OwnWriteEcho#invalidatedLocally}, and the write itself is sent by another connection, as the
 * application's would be. A fill is a stamp taken after the local invalidation. Where the report
 * must find the write invalidated already, the write is sent after it was settled: to the tracker
 * that is the order of a reply read before its report, which the test cannot force otherwise.
 */
class OwnWriteEchoTest {
  private static final byte[] HOT = "product:42".getBytes(StandardCharsets.UTF_8);
  private static final byte[][] HOT_KEYS = {HOT};
  private static final int[] HOT_HASHES = {KeyHashes.hash(HOT)};

  private final KeyVersions versions = new KeyVersions();
  private InvalidationTracking tracking;

  @AfterEach
  void stop() {
    if (tracking != null) {
      tracking.stop();
    }
  }

  private RedisEndpoint track(RedisProcess redis) throws InterruptedException {
    RedisEndpoint server = TrackingServers.endpoint(redis);
    tracking = new InvalidationTracking(versions, null);
    tracking.wantedKeys(List.of(HOT));
    tracking.admits(server, HOT_KEYS);
    await("tracking", () -> tracking.admits(server, HOT_KEYS));
    return server;
  }

  private void invalidateLocally(OwnWriteEcho echo) {
    versions.bump(HOT_HASHES[0]);
    echo.invalidatedLocally();
  }

  @ParameterizedTest(name = "withoutHello={0}")
  @ValueSource(booleans = {false, true})
  void theReportOfAnOwnWriteAlreadyInvalidatedIsNotAppliedAndTheNextReportIs(boolean withoutHello)
      throws Exception {
    try (RedisProcess redis = TrackingServers.start(RedisBuild.EMBEDDED_6_2, withoutHello);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      OwnWriteEcho echo = tracking.expectEcho(server, HOT);
      assertNotNull(echo);
      invalidateLocally(echo);
      long[] fill = versions.stamp(HOT_HASHES);

      call(application, "SET", "product:42", "own");
      await("the own write reported", () -> tracking.redundantEchoes() == 1);
      assertTrue(versions.isCurrent(fill, HOT_HASHES), "the fill after the own write is kept");
      assertEquals(1, tracking.invalidatedKeys());

      call(application, "SET", "product:42", "someone else's");
      await("the next write reported", () -> !versions.isCurrent(fill, HOT_HASHES));
      assertEquals(1, tracking.redundantEchoes());
    }
  }

  /** A write whose reply is never read (its pipeline abandoned, its connection left open). */
  @Test
  void aReportThatWaitsForAWriteThatNeverSettlesIsAppliedWithinTheBound() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      assertNotNull(tracking.expectEcho(server, HOT));
      long[] fill = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "own, never answered");
      await("the write reported", () -> tracking.invalidatedKeys() == 1);
      long reported = System.nanoTime();
      await("the report applied", () -> !versions.isCurrent(fill, HOT_HASHES));
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reported);
      // the bound, checked at the tracker's next ping (every 250 ms) when no other report comes
      assertTrue(millis < ExpectedEchoes.HOLD_MILLIS + 400, "applied after " + millis + " ms");
      assertEquals(0, tracking.redundantEchoes());
    }
  }

  @Test
  void aCancelledOwnWriteSkipsNothing() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      OwnWriteEcho failed = tracking.expectEcho(server, HOT);
      long[] fill = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "applied, but its reply was lost");
      await("the write reported", () -> tracking.invalidatedKeys() == 1);
      failed.cancel();
      assertTrue(!versions.isCurrent(fill, HOT_HASHES), "applied at the latest when cancelled");

      OwnWriteEcho refused = tracking.expectEcho(server, HOT);
      refused.cancel();
      long[] next = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "someone else's");
      await("the next write reported", () -> !versions.isCurrent(next, HOT_HASHES));
      assertEquals(0, tracking.redundantEchoes());
    }
  }

  @Test
  void onlyARegisteredKeyOfATrackedServerExpectsAReport() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2)) {
      RedisEndpoint server = track(redis);
      assertNull(
          tracking.expectEcho(server, "cold".getBytes(StandardCharsets.UTF_8)), "not registered");
      assertNull(
          tracking.expectEcho(RedisEndpoint.of("127.0.0.1", redis.port() + 1), HOT),
          "a server nobody tracks");
      assertNull(tracking.expectEcho(null, HOT), "a server the client could not tell");
      assertNotNull(tracking.expectEcho(server, HOT));
    }
  }

  @Test
  void aBrokenStreamDropsWhatItOwed() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      invalidateLocally(tracking.expectEcho(server, HOT));

      assertTrue(TrackingServers.killAgentConnections(application) > 0);
      await("tracking again", () -> tracking.servers().get(0).contains(" tracking "));
      await("the key registered again", () -> tracking.admits(server, HOT_KEYS));
      long[] fill = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "reported on the new stream");
      await("the write reported", () -> !versions.isCurrent(fill, HOT_HASHES));
      assertEquals(0, tracking.redundantEchoes());
    }
  }

  /**
   * A new key that is a prefix of a registered one makes the tracker replace its session: the old
   * one closes with the reports it had not delivered, so every covered key is invalidated, and what
   * the old one owed is dropped.
   */
  @Test
  void aNewSessionInvalidatesEveryKeyAndDropsWhatTheOldOneOwed() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      invalidateLocally(tracking.expectEcho(server, HOT));
      long[] fill = versions.stamp(HOT_HASHES);

      byte[] shorter = "product:4".getBytes(StandardCharsets.UTF_8);
      tracking.wantedKeys(List.of(HOT, shorter));
      await("the new session", () -> tracking.admits(server, new byte[][] {shorter}));
      assertTrue(!versions.isCurrent(fill, HOT_HASHES), "a key both sessions cover");

      long[] next = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "reported on the new session");
      await("the write reported", () -> !versions.isCurrent(next, HOT_HASHES));
      assertEquals(0, tracking.redundantEchoes());
    }
  }
}
