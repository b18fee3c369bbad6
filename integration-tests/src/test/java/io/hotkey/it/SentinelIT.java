package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.SentinelResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

/**
 * Redis behind Sentinel: one master, one replica and one sentinel (quorum 1). A child JVM with the
 * agent reads a hot key through {@code JedisSentinelPool} (Jedis 8, and Jedis 3 without the
 * failover, which takes about 14 s: the sentinel turns the old master into a replica some 10 s
 * after it promoted the new one) or Lettuce's {@code RedisClient} with a sentinel URI, while
 * another process writes the key on the master, gives it a TTL, and has the sentinel fail the
 * master over ({@code SENTINEL FAILOVER}). Before and after the failover: the key is served locally
 * (the master's {@code GET} calls stay flat), every write to the master is seen within the tracking
 * bound, and the agent's tracking and {@code TOUCH} go to the master, never to the sentinel ({@code
 * OBJECT IDLETIME} there stays within 2 s while the key is served). Its TTL ends the entry ({@code
 * PTTL} asked of the master). During the failover no read returns a value older than the last
 * acknowledged write. The master holds 100,000 other keys with hour-long TTLs, so its active expiry
 * does not end the hot key in time. A run that fails the master over leaves the next one on the
 * other server.
 */
@SideLane
class SentinelIT {
  private static final String MASTER_NAME = "mymaster";

  /** A write to the master is seen within this (as {@code StalenessIT}'s tracking bound). */
  private static final long SEEN_WITHIN_MICROS = StalenessIT.TRACKING_MAX_US;

  /** At most this late after its TTL (as {@code ExpiryIT}). */
  private static final long MAX_LATE_MICROS = 10_000;

  private static RedisServer first;
  private static RedisServer second;
  private static RedisServer sentinel;

  @BeforeAll
  static void startSentinel() {
    first = RedisServers.startLocal("sentinel-data-a", List.of());
    second =
        RedisServers.startLocal(
            "sentinel-data-b",
            List.of("--replicaof", first.host(), Integer.toString(first.port())));
    try (Jedis master = first.jedis()) {
      master.eval(
          "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'filler:' .. i, 'x', 'EX', 3600) end",
          0,
          "100000");
    }
    sentinel = RedisServers.startSentinel(MASTER_NAME, first);
    System.out.println("[it] " + first + ", " + second + ", " + sentinel);
  }

  @AfterAll
  static void stopSentinel() {
    for (RedisServer server : new RedisServer[] {sentinel, second, first}) {
      if (server != null) {
        server.close();
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}, failover {2}")
  @CsvSource({
    "jedis, " + Clients.JEDIS_8 + ", true",
    "lettuce, " + Clients.LETTUCE_6 + ", true",
    "jedis, " + Clients.JEDIS_3 + ", false"
  })
  void aHotKeyBehindSentinelIsServedFresh(String client, String version, boolean failOver)
      throws InterruptedException {
    awaitReplicaInSync();
    ChildRun c =
        AgentJvm.app(
                "sentinel-" + client + "-" + version,
                client.equals("lettuce")
                    ? Clients.lettuceClasspath(version)
                    : Clients.jedisClasspath(version),
                "io.hotkey.it.app.SentinelApp")
            .fullJit()
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "30s")
            .timeout(Duration.ofMinutes(2))
            .args(
                "--client",
                client,
                "--sentinel",
                sentinel.address(),
                "--master-name",
                MASTER_NAME,
                "--fail-over",
                Boolean.toString(failOver))
            .run();
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(() -> assertTrue(c.result(SentinelResults.WARMUP.hotViaJmx()), "never hot"));
    checks.add(
        () -> {
          long reads = c.result(SentinelResults.COUNTED_READS);
          long hits = c.result(SentinelResults.COUNTED_HITS);
          long gets = c.result(SentinelResults.MASTER_GETS);
          assertTrue(
              hits >= reads * 9 / 10 && gets <= reads / 10,
              "of " + reads + " reads, " + hits + " answered locally, " + gets + " GETs on master");
        });
    for (String phase : failOver ? List.of("before", "after") : List.of("before")) {
      checks.add(
          () -> {
            long micros = c.result(SentinelResults.writeSeenMicros(phase));
            assertTrue(
                micros <= SEEN_WITHIN_MICROS,
                phase + " the failover: a write to the master was unseen for " + micros + " µs");
          });
      checks.add(
          () ->
              assertTrue(
                  c.result(SentinelResults.hits(phase)) > 0,
                  phase + " the failover: no read between the writes was answered locally"));
      checks.add(
          () ->
              assertTrue(
                  c.result(SentinelResults.hits(phase + ".served")) > 1000,
                  phase
                      + " the failover: served "
                      + c.result(SentinelResults.hits(phase + ".served"))
                      + " reads in 3.5 s"));
      checks.add(
          () -> {
            long idle = c.result(SentinelResults.idleWhileServed(phase));
            assertTrue(idle <= 2, phase + ": OBJECT IDLETIME " + idle + " s on the master");
          });
      checks.add(
          () ->
              assertTrue(
                  c.result(SentinelResults.masterTouches(phase)) > 0,
                  phase + ": no TOUCH reached the master"));
      checks.add(
          () -> {
            String master = c.result(SentinelResults.master(phase));
            List<String> tracked = c.result(SentinelResults.trackingServers(phase));
            assertTrue(
                tracked.stream().anyMatch(s -> s.startsWith(master + " tracking"))
                    && tracked.stream().noneMatch(s -> s.startsWith(sentinel.address() + " ")),
                phase + ": tracked " + tracked + ", master " + master + ", " + sentinel);
          });
    }
    checks.add(
        () ->
            assertTrue(
                c.result(SentinelResults.TTL_HITS) > 0,
                "no read before the TTL was answered locally"));
    checks.add(
        () -> {
          long late = c.result(SentinelResults.TTL_LATE_MICROS);
          assertTrue(late <= MAX_LATE_MICROS, "a read got the value " + late + " µs after its TTL");
        });
    checks.add(
        () -> assertTrue(c.result(SentinelResults.MASTER_PTTLS) > 0, "no PTTL reached the master"));
    if (failOver) {
      checks.add(
          () ->
              assertEquals(
                  0L,
                  c.result(SentinelResults.FAILOVER_OLDER_READS),
                  "reads during the failover older than the last acknowledged write"));
      checks.add(
          () ->
              assertNotEquals(
                  c.result(SentinelResults.master("before")),
                  c.result(SentinelResults.master("after")),
                  "the master did not move"));
    }
    Check.all(c, "sentinel " + client + " " + version, checks.toArray(new Executable[0]));
  }

  /**
   * Until the sentinel sees the one replica up and linked to its master (after a failover, the old
   * master once it replicates from the new one), so that it can fail over again.
   */
  private static void awaitReplicaInSync() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    List<Map<String, String>> replicas = List.of();
    while (System.nanoTime() < deadline) {
      try (Jedis j = sentinel.jedis()) {
        replicas = j.sentinelReplicas(MASTER_NAME);
        if (replicas.size() == 1
            && "slave".equals(replicas.get(0).get("flags"))
            && "ok".equals(replicas.get(0).get("master-link-status"))) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the sentinel never saw its replica in sync: " + replicas);
  }
}
