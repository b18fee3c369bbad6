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
 * played by the test: the write is sent by another connection, as the application's would be, and
 * its local invalidation is {@link OwnWriteEcho#invalidatingLocally} followed by a bump of its key.
 * A fill is a stamp.
 */
class OwnWriteEchoTest {
  private static final byte[] HOT = "product:42".getBytes(StandardCharsets.UTF_8);
  private static final byte[][] HOT_KEYS = {HOT};
  private static final int[] HOT_HASHES = {KeyHashes.hash(HOT)};

  /** A key no write expects, whose report tells that the reports before it were handled. */
  private static final byte[] MARKER = "marker".getBytes(StandardCharsets.UTF_8);

  private final KeyVersions versions = new KeyVersions();
  private InvalidationTracking tracking;

  /** When set, the time a held report has waited stands still, however slow the machine. */
  private volatile long frozenAt;

  @AfterEach
  void stop() {
    if (tracking != null) {
      tracking.stop();
    }
  }

  private RedisEndpoint track(RedisProcess redis) throws InterruptedException {
    RedisEndpoint server = TrackingServers.endpoint(redis);
    tracking =
        new InvalidationTracking(
            versions, null, () -> frozenAt != 0 ? frozenAt : System.nanoTime());
    tracking.wantedKeys(List.of(HOT, MARKER));
    tracking.admits(server, HOT_KEYS);
    await("tracking", () -> tracking.admits(server, new byte[][] {HOT, MARKER}));
    return server;
  }

  private void invalidateLocally(OwnWriteEcho echo) {
    echo.invalidatingLocally();
    versions.bump(HOT_HASHES[0]);
  }

  /** Waits until every report of a write already reported has been handled. */
  private void awaitReportsHandled(RespConnection application) throws Exception {
    int[] marker = {KeyHashes.hash(MARKER)};
    long[] fill = versions.stamp(marker);
    call(application, "SET", "marker", "x");
    await("the marker's report", () -> !versions.isCurrent(fill, marker));
  }

  @ParameterizedTest(name = "withoutHello={0}")
  @ValueSource(booleans = {false, true})
  void aReportReadWhileTheOwnWriteIsInFlightIsAppliedWithItsInvalidation(boolean withoutHello)
      throws Exception {
    try (RedisProcess redis = TrackingServers.start(RedisBuild.EMBEDDED_6_2, withoutHello);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      frozenAt = System.nanoTime();
      OwnWriteEcho echo = tracking.expectEcho(server, HOT);
      assertNotNull(echo);
      long[] beforeWrite = versions.stamp(HOT_HASHES);

      call(application, "SET", "product:42", "own");
      await("the own write reported", () -> tracking.invalidatedKeys() == 1);
      awaitReportsHandled(application);
      assertTrue(versions.isCurrent(beforeWrite, HOT_HASHES), "held for the write's reply");
      echo.invalidatingLocally();
      assertTrue(!versions.isCurrent(beforeWrite, HOT_HASHES), "applied, not dropped");
      versions.bump(HOT_HASHES[0]);
      assertEquals(1, tracking.heldEchoes());

      long[] afterWrite = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "someone else's");
      await("the next write reported", () -> !versions.isCurrent(afterWrite, HOT_HASHES));
      assertEquals(1, tracking.heldEchoes());
    }
  }

  @Test
  void anExpectationSettledBeforeItsReportHoldsNothing() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      frozenAt = System.nanoTime();
      invalidateLocally(tracking.expectEcho(server, HOT));
      long[] afterWrite = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "own, or someone else's just after");
      await("the report applied", () -> !versions.isCurrent(afterWrite, HOT_HASHES));
      assertEquals(0, tracking.heldEchoes());
    }
  }

  /** A write whose reply is never read (its pipeline abandoned, its connection left open). */
  @Test
  void aReportThatWaitsForAWriteThatNeverSettlesIsAppliedWithinTheBound() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection application = TrackingServers.connect(redis)) {
      RedisEndpoint server = track(redis);
      frozenAt = System.nanoTime();
      assertNotNull(tracking.expectEcho(server, HOT));
      long[] fill = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "own, never answered");
      await("the write reported", () -> tracking.invalidatedKeys() == 1);
      awaitReportsHandled(application);
      assertTrue(versions.isCurrent(fill, HOT_HASHES), "held");
      long heldAt = frozenAt;
      frozenAt = heldAt + TimeUnit.MILLISECONDS.toNanos(ExpectedEchoes.HOLD_MILLIS) + 1;
      // no other report comes: the tracker's own check applies it
      await("the report applied", () -> !versions.isCurrent(fill, HOT_HASHES));
      assertEquals(0, tracking.heldEchoes());
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
      awaitReportsHandled(application);
      failed.cancel();
      assertTrue(!versions.isCurrent(fill, HOT_HASHES), "applied at the latest when cancelled");

      OwnWriteEcho refused = tracking.expectEcho(server, HOT);
      refused.cancel();
      long[] next = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "someone else's");
      await("the next write reported", () -> !versions.isCurrent(next, HOT_HASHES));
      assertEquals(0, tracking.heldEchoes());
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
      frozenAt = System.nanoTime();
      OwnWriteEcho owed = tracking.expectEcho(server, HOT);

      assertTrue(TrackingServers.killAgentConnections(application) > 0);
      await("tracking again", () -> tracking.servers().get(0).contains(" tracking "));
      await("the key registered again", () -> tracking.admits(server, HOT_KEYS));
      long[] fill = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "reported on the new stream");
      await("the write reported", () -> !versions.isCurrent(fill, HOT_HASHES));
      invalidateLocally(owed);
      assertEquals(0, tracking.heldEchoes());
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
      frozenAt = System.nanoTime();
      OwnWriteEcho owed = tracking.expectEcho(server, HOT);
      long[] fill = versions.stamp(HOT_HASHES);

      byte[] shorter = "product:4".getBytes(StandardCharsets.UTF_8);
      tracking.wantedKeys(List.of(HOT, shorter));
      await("the new session", () -> tracking.admits(server, new byte[][] {shorter}));
      assertTrue(!versions.isCurrent(fill, HOT_HASHES), "a key both sessions cover");

      long[] next = versions.stamp(HOT_HASHES);
      call(application, "SET", "product:42", "reported on the new session");
      await("the write reported", () -> !versions.isCurrent(next, HOT_HASHES));
      invalidateLocally(owed);
      assertEquals(0, tracking.heldEchoes());
    }
  }
}
