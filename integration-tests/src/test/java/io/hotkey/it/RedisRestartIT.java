package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.RedisRestartResults;
import io.hotkey.it.app.results.StalenessResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Redis server restarts while two application JVMs read hot keys under tracking: the other way,
 * besides {@code CLIENT KILL} ({@link StalenessIT}), that every tracking connection breaks at once,
 * and one in which the application's own reads and another instance's writes fail too. Each JVM
 * runs {@code RedisRestartApp} on a key of its own, written around the agent every 5 ms, with a 30
 * s TTL, so that only tracking can explain a fresh answer. The server keeps an append-only file
 * synced on every write, so it comes back with every acknowledged step and the staleness of each
 * answer is measured against the writer's acknowledgements across the restart. Once every JVM
 * served its key locally, the test stops Redis, waits, and starts it again.
 *
 * <p>No read is answered with a value staler than 1 s, before, during or after the restart; each
 * agent lost its tracking connection, is tracking again within {@link #RETRACKED_WITHIN_MS} of
 * Redis answering, and answers locally again. Every condition is waited for with a generous
 * deadline and timed from the moment Redis answers, never from a fixed sleep. Mostly waits, on a
 * server of its own, beside the other classes.
 */
@SideLane
class RedisRestartIT {
  static final int INSTANCES = 2;
  static final long OUTAGE_MS = 2_000;
  static final long STALENESS_MAX_US = 1_000_000;

  /**
   * The first reply the application reads from Redis once it is back starts the agent's next
   * attempt at once, whatever its backoff; the rest is slack for a loaded machine.
   */
  static final long RETRACKED_WITHIN_MS = 3_000;

  /**
   * The agent's tracking does not depend on the application's client, so the RESP2 path (a server
   * that refuses {@code HELLO 3}, invalidations redirected to a subscribed second connection, both
   * of which the restart breaks) runs with one client.
   */
  @ParameterizedTest(name = "{0}, {1}")
  @CsvSource({"jedis, RESP3", "lettuce, RESP3", "jedis, RESP2 redirect"})
  void aRestartedRedisIsTrackedAgainAndNoAnswerIsStale(String client, String mode)
      throws Exception {
    List<ChildRun> runs = new ArrayList<>();
    ExecutorService launcher = Executors.newFixedThreadPool(INSTANCES);
    List<String> options =
        mode.equals("RESP3")
            ? List.of()
            : List.of("--rename-command", "HELLO", "hello-disabled-for-test");
    try (RedisServer server =
        RedisServers.startPersistent("restart-" + client + "-" + mode.replace(' ', '-'), options)) {
      System.out.println("[it] using " + server);
      Restart restart = new Restart(server);
      List<Future<ChildRun>> launched = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        AgentJvm app = app(client, server, "restart:" + client + ":" + i);
        launched.add(launcher.submit(() -> app.run(restart::onSync)));
      }
      for (Future<ChildRun> run : launched) {
        runs.add(run.get());
      }
    } finally {
      launcher.shutdownNow();
    }
    for (ChildRun c : runs) {
      Check.all(
          c,
          "staleness across a restart of Redis (" + client + ", " + mode + ")",
          checks(c, mode).stream());
    }
  }

  private static AgentJvm app(String client, RedisServer server, String key) {
    return AgentJvm.app(
            key.replace(':', '-'),
            StalenessIT.classpath(client),
            "io.hotkey.it.app.RedisRestartApp")
        .hotkeyTestDefaults()
        .prop("hotkey.cache.ttl", StalenessIT.LONG_TTL)
        .timeout(Duration.ofMinutes(3))
        .args(
            "--client",
            client,
            "--redis",
            server.address(),
            "--key",
            key,
            "--write-every-ms",
            "5",
            "--before-ms",
            "1000",
            "--after-ms",
            "2000");
  }

  private static List<Executable> checks(ChildRun c, String mode) {
    List<Executable> checks = StalenessIT.servedAndCorrect(c);
    checks.add(() -> assertNull(c.handlerFailure(), "the test's restart"));
    checks.add(
        () ->
            assertTrue(
                c.result(StalenessResults.READ_FAILURES) > 0
                    && c.result(RedisRestartResults.WRITE_FAILURES) > 0,
                () ->
                    "Redis' absence went unnoticed: "
                        + c.result(StalenessResults.READ_FAILURES)
                        + " failed reads, "
                        + c.result(RedisRestartResults.WRITE_FAILURES)
                        + " failed writes"));
    checks.add(StalenessIT.bounded(c, STALENESS_MAX_US, STALENESS_MAX_US));
    checks.add(
        () ->
            assertTrue(
                c.result(RedisRestartResults.TRACKING_LOST) >= 1,
                () ->
                    "the agent never lost tracking: "
                        + c.result(RedisRestartResults.TRACKING_LOST)));
    checks.add(
        () -> {
          long ms = c.result(StalenessResults.RETRACKED_AFTER_MS);
          assertTrue(
              ms >= 0 && ms <= RETRACKED_WITHIN_MS,
              () -> "tracking again " + ms + " ms after Redis answered (-1: not within 30 s)");
        });
    checks.add(
        () ->
            assertTrue(
                c.result(RedisRestartResults.HITS_BEFORE_RESTART) > 0,
                () ->
                    "no local answer before the restart: "
                        + c.result(RedisRestartResults.HITS_BEFORE_RESTART)));
    checks.add(
        () -> {
          long ms = c.result(RedisRestartResults.SERVED_AGAIN_AFTER_MS);
          assertTrue(
              ms >= 0,
              () ->
                  "no local answers after the restart ("
                      + c.result(RedisRestartResults.HITS_AFTER_RESTART)
                      + " hits; not within 30 s)");
        });
    checks.add(
        () ->
            assertTrue(
                !c.result(StalenessResults.TRACKING_SERVERS).isEmpty()
                    && c.result(StalenessResults.TRACKING_SERVERS).stream()
                        .allMatch(server -> server.matches("\\S+ tracking \\(" + mode + "\\)")),
                () -> "tracking state at the end: " + c.result(StalenessResults.TRACKING_SERVERS)));
    return checks;
  }

  /**
   * Answers each JVM's {@code SYNC redis-restarted} once every JVM asked: the first answer to get
   * there stops Redis, waits {@link #OUTAGE_MS} and starts it again, and every answer returns once
   * Redis answers PING.
   */
  private static final class Restart {
    private final RedisServer server;
    private final CountDownLatch asked = new CountDownLatch(INSTANCES);
    private boolean done;

    Restart(RedisServer server) {
      this.server = server;
    }

    String onSync(String name) throws Exception {
      assertEquals("redis-restarted", name);
      asked.countDown();
      // a JVM waits here for the others' warm-ups; a child gives up on its SYNC after 60 s
      if (!asked.await(50, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not every JVM served its key within 50 s of the first");
      }
      synchronized (this) {
        if (!done) {
          done = true;
          long start = System.nanoTime();
          server.stop();
          Thread.sleep(OUTAGE_MS);
          server.restart();
          System.out.println(
              "[it] Redis stopped and answering again after "
                  + (System.nanoTime() - start) / 1_000_000
                  + " ms");
        }
      }
      return "";
    }
  }
}
