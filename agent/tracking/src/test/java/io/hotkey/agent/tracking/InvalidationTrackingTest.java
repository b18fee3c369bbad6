package io.hotkey.agent.tracking;

import static io.hotkey.agent.tracking.TrackingServers.await;
import static io.hotkey.agent.tracking.TrackingServers.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.io.IOException;
import java.net.PasswordAuthentication;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which replies may become local entries while tracking works, fails, and comes back; each against
 * a real server.
 */
class InvalidationTrackingTest {
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

  @Test
  void aReplyIsAdmittedOnlyOnceItsKeyIsRegisteredAndAnotherClientsWriteInvalidatesIt()
      throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      tracking = new InvalidationTracking(versions, null);
      assertFalse(tracking.admits(server, HOT_KEYS), "nothing is registered yet");
      tracking.wantedKeys(List.of(HOT));
      await("the hot key registered", () -> tracking.admits(server, HOT_KEYS));
      assertFalse(
          tracking.admits(server, new byte[][] {"cold".getBytes(StandardCharsets.UTF_8)}),
          "a key that is not registered");
      assertFalse(tracking.admits(server, null), "a reply whose keys are not all known");

      long[] stamp = versions.stamp(HOT_HASHES);
      call(writer, "SET", "product:42", "new");
      await("the write reported", () -> !versions.isCurrent(stamp, HOT_HASHES));
      assertEquals(1, tracking.invalidatedKeys());
    }
  }

  /**
   * A demoted key's prefix would normally stay registered until stale ones pile up; an untracked
   * one is dropped at once, so Redis stops pushing its writes here, while the other keys' go on.
   */
  @Test
  void anUntrackedKeyIsNoLongerPushedWhileTheOtherKeysStillAre() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      byte[] written = "stock:7".getBytes(StandardCharsets.UTF_8);
      List<String> reported = new CopyOnWriteArrayList<>();
      tracking = new InvalidationTracking(versions, null);
      tracking.countReports(key -> reported.add(new String(key, StandardCharsets.UTF_8)));
      tracking.admits(server, HOT_KEYS);
      tracking.wantedKeys(List.of(HOT, written));
      await("both keys registered", () -> tracking.admits(server, new byte[][] {HOT, written}));
      call(writer, "SET", "stock:7", "1");
      await("its write reported", () -> tracking.invalidatedKeys() == 1);

      int[] writtenHash = {KeyHashes.hash(written)};
      long[] stamp = versions.stamp(writtenHash);
      tracking.untrack(written);
      assertFalse(versions.isCurrent(stamp, writtenHash), "its entries dropped at once");
      tracking.wantedKeys(List.of(HOT));
      await("tracked no more", () -> !tracking.admits(server, new byte[][] {written}));
      // the session that registered its prefix is closed just after the fresh one is published
      await("one session left", () -> agentClientCount(writer) == 1);
      long before = tracking.invalidatedKeys();
      for (int n = 0; n < 20; n++) {
        call(writer, "SET", "stock:7", Integer.toString(n));
      }
      call(writer, "SET", "product:42", "new");
      await("the hot key's write reported", () -> tracking.invalidatedKeys() > before);
      // a report is counted before it is passed on
      await("passed on", () -> reported.get(reported.size() - 1).equals("product:42"));
      assertEquals(before + 1, tracking.invalidatedKeys(), "no push for the untracked key");
      assertTrue(tracking.admits(server, HOT_KEYS));
    }
  }

  private static int agentClientCount(RespConnection admin) {
    try {
      return TrackingServers.agentClients(admin).size();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theEmptyPrefixAdmitsEveryKeyAndAnyKeysWriteInvalidatesIt() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      tracking = new InvalidationTracking(versions, null);
      tracking.wantedKeys(List.of(new byte[0]));
      await("every key registered", () -> tracking.admits(server, HOT_KEYS));
      byte[] other = "any:other".getBytes(StandardCharsets.UTF_8);
      assertTrue(tracking.admits(server, new byte[][] {other}));

      int[] otherHash = {KeyHashes.hash(other)};
      long[] stamp = versions.stamp(otherHash);
      call(writer, "SET", "any:other", "new");
      await("the write reported", () -> !versions.isCurrent(stamp, otherHash));
    }
  }

  @Test
  void aKilledTrackingConnectionFlushesEverythingAndTrackingComesBackByItself() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection admin = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      startTracking(server);
      long[] stamp = versions.stamp(HOT_HASHES);

      assertTrue(TrackingServers.killAgentConnections(admin) > 0);
      await("the gap noticed", () -> !versions.isCurrent(stamp, HOT_HASHES));
      assertEquals(1L, tracking.flushes().get("tracking_lost"));
      await("tracking again", () -> tracking.admits(server, HOT_KEYS));
      assertEquals(List.of("127.0.0.1:" + redis.port() + " tracking (RESP3)"), tracking.servers());
    }
  }

  /**
   * Redis stays away until the tracker's retries are 3.2 s apart and its next one is due 5 s after
   * the last: a reply read from the server once it is back starts the next attempt at once.
   */
  @Test
  void aReplyFromAServerThatIsBackCutsTheReconnectBackoffShort() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      startTracking(server);

      redis.kill();
      await("the gap noticed", () -> tracking.servers().get(0).contains(" gap"));
      // retries at +0, 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3 s; the next would come at 11.3 s
      Thread.sleep(7_000);
      redis.restart();
      long back = System.nanoTime();
      await("tracking again", () -> tracking.admits(server, HOT_KEYS));
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
      assertTrue(millis < 2_000, "tracking again " + millis + " ms after Redis came back");
    }
  }

  /**
   * After a loss the tracker retries at +0, 0.1, 0.3 and 0.7 s, however often the hot keys change
   * meanwhile (each change wakes it to register them, which must not cut a backoff short).
   */
  @Test
  void hotKeyChangesDoNotCutTheReconnectBackoffShort() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection admin = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      startTracking(server);

      call(admin, "CONFIG", "SET", "requirepass", "now-required");
      Thread changes =
          new Thread(
              () -> {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                  tracking.wantedKeys(
                      List.of(HOT, ("other:" + i).getBytes(StandardCharsets.UTF_8)));
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      changes.start();
      List<Long> attempts = new ArrayList<>();
      try {
        long before = connectionsReceived(admin);
        assertTrue(TrackingServers.killAgentConnections(admin) > 0);
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(1_200)) {
          long now = connectionsReceived(admin);
          long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          if (now > before && (attempts.isEmpty() || at - attempts.get(attempts.size() - 1) > 40)) {
            attempts.add(at); // an attempt opens one connection, or two when HELLO 3 fails
          }
          before = now;
          Thread.sleep(2);
        }
      } finally {
        changes.interrupt();
        changes.join();
      }
      assertEquals(4, attempts.size(), "attempts at ms " + attempts);
      for (int i = 1; i < attempts.size(); i++) {
        long expected = 100L << (i - 1);
        assertTrue(
            attempts.get(i) - attempts.get(i - 1) >= expected - 20,
            "attempt " + (i + 1) + " at least " + expected + " ms after the last: " + attempts);
      }
    }
  }

  /** An interrupt of the tracking thread neither stops it nor makes it ping in a loop. */
  @Test
  void anInterruptedTrackingThreadKeepsItsPace() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      startTracking(server);
      Thread tracker =
          Thread.getAllStackTraces().keySet().stream()
              .filter(
                  thread -> thread.getName().equals("hotkey-tracking-127.0.0.1:" + redis.port()))
              .findFirst()
              .orElseThrow();
      long pingsBefore = pings(writer);
      long connectionsBefore = connectionsReceived(writer);
      tracker.interrupt();
      Thread.sleep(1_000);
      long pings = pings(writer) - pingsBefore;
      assertTrue(pings <= 6, pings + " PINGs in the second after the interrupt (one per 250 ms)");
      assertEquals(
          connectionsBefore, connectionsReceived(writer), "the same tracking connection serves on");
      assertEquals(0L, tracking.flushes().get("tracking_lost"), tracking.servers().toString());
      long[] stamp = versions.stamp(HOT_HASHES);
      call(writer, "SET", "product:42", "after the interrupt");
      await("a write reported after the interrupt", () -> !versions.isCurrent(stamp, HOT_HASHES));
    }
  }

  /** Tracks the hot key on {@code server} and waits until its replies may be stored. */
  private void startTracking(RedisEndpoint server) throws InterruptedException {
    tracking = new InvalidationTracking(versions, null);
    tracking.wantedKeys(List.of(HOT));
    tracking.admits(server, HOT_KEYS);
    await("tracking", () -> tracking.admits(server, HOT_KEYS));
  }

  private static long connectionsReceived(RespConnection admin) throws IOException {
    return infoField(admin, "stats", "total_connections_received");
  }

  private static long pings(RespConnection admin) throws IOException {
    String stats = info(admin, "commandstats");
    java.util.regex.Matcher calls =
        java.util.regex.Pattern.compile("cmdstat_ping:calls=(\\d+)").matcher(stats);
    return calls.find() ? Long.parseLong(calls.group(1)) : 0;
  }

  private static long infoField(RespConnection admin, String section, String field)
      throws IOException {
    for (String line : info(admin, section).split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new AssertionError("no " + field + " in INFO " + section);
  }

  private static String info(RespConnection admin, String section) throws IOException {
    return new String((byte[]) call(admin, "INFO", section), StandardCharsets.UTF_8);
  }

  @Test
  void aServerFlushDropsEveryLocalEntry() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2);
        RespConnection writer = TrackingServers.connect(redis)) {
      RedisEndpoint server = TrackingServers.endpoint(redis);
      startTracking(server);
      int[] unrelated = {KeyHashes.hash("anything".getBytes(StandardCharsets.UTF_8))};
      long[] stamp = versions.stamp(unrelated);
      call(writer, "FLUSHALL");
      await("the flush reported", () -> !versions.isCurrent(stamp, unrelated));
      assertEquals(1L, tracking.flushes().get("server_flush"));
    }
  }

  @Test
  void aServerThatDeniesClientTrackingFallsBackToTheTtl() throws Exception {
    try (RedisProcess redis =
        RedisProcess.start(
            RedisBuild.DEBIAN_7,
            "--user",
            "default",
            "on",
            "nopass",
            "~*",
            "&*",
            "+@all",
            "-client|tracking")) {
      assertFallsBackToTheTtl(TrackingServers.endpoint(redis));
    }
  }

  @Test
  void aWrongPasswordFallsBackToTheTtl() throws Exception {
    try (RedisProcess redis =
        RedisProcess.start(RedisBuild.EMBEDDED_6_2, "--requirepass", "right")) {
      assertFallsBackToTheTtl(TrackingServers.endpoint(redis).withCredentials(null, "wrong"));
    }
  }

  @Test
  void credentialsFromTheApplicationsClientAreAskedAgainOnEveryConnect() throws Exception {
    try (RedisProcess redis =
            RedisProcess.start(RedisBuild.EMBEDDED_6_2, "--requirepass", "right");
        RespConnection admin =
            new RespConnection(
                TrackingServers.endpoint(redis).withCredentials(null, "right"), 2000, 2000)) {
      AtomicInteger asked = new AtomicInteger();
      RedisEndpoint server =
          TrackingServers.endpoint(redis)
              .withCredentialsFrom(
                  () -> {
                    asked.incrementAndGet();
                    return new PasswordAuthentication(null, "right".toCharArray());
                  });
      startTracking(server);
      int before = asked.get();
      assertTrue(TrackingServers.killAgentConnections(admin) > 0);
      await("tracking again", () -> tracking.admits(server, HOT_KEYS) && asked.get() > before);
    }
  }

  @Test
  void aCredentialsSourceThatFailsFallsBackToTheTtlWithoutQuotingIt() throws Exception {
    try (RedisProcess redis =
        RedisProcess.start(RedisBuild.EMBEDDED_6_2, "--requirepass", "right")) {
      assertFallsBackToTheTtl(
          TrackingServers.endpoint(redis)
              .withCredentialsFrom(
                  () -> {
                    throw new IllegalStateException("token endpoint said: secret-token-77");
                  }));
      String line = tracking.servers().get(0);
      assertTrue(line.contains("IllegalStateException"), line);
      assertFalse(line.contains("secret-token-77"), line);
    }
  }

  /** The server's replies are stored, bounded by the TTL, once its tracker gave up on tracking. */
  private void assertFallsBackToTheTtl(RedisEndpoint server) throws Exception {
    tracking = new InvalidationTracking(versions, null);
    tracking.wantedKeys(List.of(HOT));
    tracking.admits(server, HOT_KEYS);
    await("the TTL fallback", () -> tracking.admits(server, HOT_KEYS));
    assertTrue(tracking.servers().get(0).contains("ttl_fallback"), tracking.servers().toString());
  }

  @Test
  void theRightPasswordTracks() throws Exception {
    try (RedisProcess redis =
        RedisProcess.start(RedisBuild.EMBEDDED_6_2, "--requirepass", "right")) {
      RedisEndpoint server = TrackingServers.endpoint(redis).withCredentials(null, "right");
      tracking = new InvalidationTracking(versions, null);
      tracking.wantedKeys(List.of(HOT));
      tracking.admits(server, HOT_KEYS);
      await("tracking", () -> tracking.servers().get(0).contains(" tracking "));
    }
  }

  @Test
  void anUnreachableServerFallsBackToTheTtl() throws Exception {
    RedisEndpoint nowhere;
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      nowhere = RedisEndpoint.of("127.0.0.1", closed.getLocalPort());
    }
    tracking = new InvalidationTracking(versions, null);
    tracking.wantedKeys(List.of(HOT));
    RedisEndpoint server = nowhere;
    tracking.admits(server, HOT_KEYS);
    await("the TTL fallback", () -> tracking.admits(server, HOT_KEYS));
  }
}
