package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.StalenessResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How long another instance's write stays invisible. {@code StalenessApp} reads a hot key on two
 * threads while a raw connection, which no hook sees (exactly what another instance of the service
 * is to this one), SETs it to a new step every 5 ms; each read is stale by how long a newer step
 * had been acknowledged when it started. With client tracking the bound is the server's push, not
 * the TTL, which is therefore set long (30 s) to show that it no longer matters.
 */
class StalenessIT extends RedisTestBase {
  static final long TRACKING_P99_US = 10_000;
  static final long TRACKING_MAX_US = 100_000;
  static final String LONG_TTL = "30s";
  static final long FULL_CPU_P99_US = 5_000;
  static final long FULL_CPU_MAX_US = 50_000;

  private AgentJvm app(String client, String key, String... extra) {
    List<String> args = new ArrayList<>(List.of("--client", client));
    args.addAll(List.of(extra));
    return app("staleness-" + client, classpath(client), redis, key, args.toArray(new String[0]));
  }

  /** The scenario apps with Lettuce 6 or Jedis 8. */
  static String classpath(String client) {
    return Clients.newestClasspath(client);
  }

  /**
   * {@code StalenessApp} on {@code classpath}, its writer at {@code server}, 600 steps 5 ms apart.
   */
  static AgentJvm app(
      String name, String classpath, RedisServer server, String key, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--redis",
                server.address(),
                "--key",
                key,
                "--steps",
                "600",
                "--write-every-ms",
                "5"));
    args.addAll(List.of(extra));
    return AgentJvm.app(name, classpath, "io.hotkey.it.app.StalenessApp")
        .fullJit()
        .hotkeyTestDefaults()
        .timeout(Duration.ofMinutes(2))
        .args(args.toArray(new String[0]));
  }

  static ChildRun run(AgentJvm jvm) {
    return jvm.run(name -> "");
  }

  static List<Executable> servedAndCorrect(ChildRun c) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(false, c.timedOut(), "timed out"));
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(
        () -> assertTrue(c.result(StalenessResults.SERVED_AFTER_WARMUP), "never served locally"));
    checks.add(
        () -> assertEquals(0, c.result(StalenessResults.WRONG_VALUES), "values never written"));
    checks.add(
        () ->
            assertTrue(
                c.result(StalenessResults.HITS) > c.result(StalenessResults.READS) / 10,
                () ->
                    "too few local answers to prove anything: "
                        + c.result(StalenessResults.HITS)
                        + " of "
                        + c.result(StalenessResults.READS)));
    return checks;
  }

  static Executable bounded(ChildRun c, long p99Us, long maxUs) {
    return () -> {
      long p99 = c.result(StalenessResults.P99_US);
      long max = c.result(StalenessResults.MAX_US);
      assertTrue(
          p99 <= p99Us && max <= maxUs,
          () ->
              "staleness p99 "
                  + p99
                  + " µs (want <= "
                  + p99Us
                  + "), max "
                  + max
                  + " µs (want <= "
                  + maxUs
                  + ")");
    };
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void trackingBoundsStalenessByTheServersPushNotTheTtl(String client) {
    ChildRun c = run(app(client, "stale:" + client).prop("hotkey.cache.ttl", LONG_TTL));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, TRACKING_P99_US, TRACKING_MAX_US));
    checks.add(
        () ->
            assertTrue(
                c.result(StalenessResults.TRACKING_SERVERS).stream()
                    .anyMatch(server -> server.contains(" tracking")),
                () -> "tracking state: " + c.result(StalenessResults.TRACKING_SERVERS)));
    Check.all(c, "staleness with tracking", checks.stream());
  }

  /**
   * Every core busy: as many threads as cores compute, four more read the hot key as fast as the
   * local cache answers, so the agent's tracking reader waits for a core like any other thread. The
   * threads serving hits apply the reports instead, so the bound holds whatever the scheduler does.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis-pooled", "lettuce"})
  void atFullCpuAnotherInstancesWriteIsSeenWithinMilliseconds(String client) {
    ChildRun c =
        run(
            app(client, "stale:busy:" + client, "--readers", "4", "--busy-threads", "cores")
                .prop("hotkey.cache.ttl", LONG_TTL));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, FULL_CPU_P99_US, FULL_CPU_MAX_US));
    Check.all(c, "staleness at full CPU", checks.stream());
  }

  @Test
  void withTtlOnlyAWriteStaysInvisibleUpToTheTtl() {
    long ttlMs = 300;
    ChildRun c =
        run(
            app("jedis", "stale:ttl")
                .prop("hotkey.cache.invalidation", "ttl")
                .prop("hotkey.cache.ttl", ttlMs + "ms"));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, Long.MAX_VALUE, (ttlMs + 200) * 1000));
    checks.add(
        () ->
            assertEquals(
                List.of(),
                c.result(StalenessResults.TRACKING_SERVERS),
                "no server is tracked with invalidation=ttl"));
    Check.all(c, "staleness with the TTL alone", checks.stream());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void aKilledTrackingConnectionFlushesRetracksAndNeverServesStale(String client) {
    ChildRun c =
        run(
            app(client, "stale:kill:" + client, "--kill-at-step", "300")
                .prop("hotkey.cache.ttl", LONG_TTL));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, TRACKING_P99_US, TRACKING_MAX_US));
    checks.add(
        () -> assertTrue(c.result(StalenessResults.KILLED) >= 1, "no tracking connection killed"));
    checks.add(
        () -> {
          long ms = c.result(StalenessResults.RETRACKED_AFTER_MS);
          assertTrue(ms >= 0 && ms <= 5_000, () -> "tracked again after " + ms + " ms");
        });
    Check.all(c, "staleness across CLIENT KILL", checks.stream());
  }

  @Test
  void flushallInvalidatesEveryEntry() {
    ChildRun c =
        run(
            app("lettuce", "stale:flush", "--flush-at-step", "300")
                .prop("hotkey.cache.ttl", LONG_TTL));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, TRACKING_P99_US, TRACKING_MAX_US));
    Check.all(c, "staleness across FLUSHALL", checks.stream());
  }

  /**
   * The application writes the key too, and another instance's write follows each of its own at
   * once, then nothing for 150 ms: a report of that write left unapplied because of the own write
   * before it would leave it invisible for 150 ms, beyond the bound.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void anotherInstancesWriteRightAfterAnOwnWriteIsSeenWithinTheBound(String client) {
    ChildRun c =
        run(
            app(
                    client,
                    "stale:own:" + client,
                    "--own-writes",
                    "true",
                    "--steps",
                    "60",
                    "--write-every-ms",
                    "150")
                .prop("hotkey.cache.ttl", LONG_TTL));
    List<Executable> checks = servedAndCorrect(c);
    checks.add(bounded(c, TRACKING_P99_US, TRACKING_MAX_US));
    checks.add(
        () ->
            assertTrue(
                c.result(StalenessResults.HELD_INVALIDATIONS) > 0,
                "no report of an own write was left unapplied: the case is not exercised"));
    Check.all(c, "staleness with own writes", checks.stream());
  }

  @Test
  void twoInstancesEachSeeTheOthersWritesWithinTheBound() throws Exception {
    // two service instances at once against one server, each tracking its own hot key
    CompletableFuture<ChildRun> jedis =
        CompletableFuture.supplyAsync(
            () -> run(app("jedis", "stale:two:a").prop("hotkey.cache.ttl", LONG_TTL)));
    ChildRun lettuce = run(app("lettuce", "stale:two:b").prop("hotkey.cache.ttl", LONG_TTL));
    ChildRun first = jedis.get();
    for (ChildRun c : List.of(first, lettuce)) {
      List<Executable> checks = servedAndCorrect(c);
      checks.add(bounded(c, TRACKING_P99_US, TRACKING_MAX_US));
      Check.all(c, "staleness of two instances", checks.stream());
    }
  }
}
