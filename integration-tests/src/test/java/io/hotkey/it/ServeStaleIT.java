package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.StaleOnErrorResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * {@code hotkey.cache.serve-stale-on-error}: Redis is stopped, or hangs, while a hot key is served;
 * its reads are answered with the last value for as long as that value is younger than the bound,
 * and fail after it, as they would without the agent. Without the setting they fail as soon as the
 * agent noticed Redis is gone. Every case has a Redis of its own.
 */
@SideLane
class ServeStaleIT {
  static final long BOUND_MS = 3_000;

  /** A key that is never hot. */
  static final String COLD = "stale:cold";

  /** Lettuce's command timeout in the app. */
  static final long TIMEOUT_MS = 500;

  private RedisServer redis;
  private Jedis pauser;

  @AfterEach
  void stopRedis() {
    if (pauser != null) {
      pauser.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private ChildRun run(String client, String serveStale) {
    return app(client, Clients.LETTUCE_6, serveStale, 6)
        .run(
            name -> {
              redis.stop();
              return "";
            });
  }

  /** The app reading {@code stale:price} for {@code seconds} once Redis is gone. */
  private AgentJvm app(String client, String lettuce, String serveStale, long seconds) {
    redis = RedisServers.start();
    String key = "stale:price";
    try (Jedis j = redis.jedis()) {
      j.set(key, "42");
      j.set(COLD, "7");
    }
    AgentJvm jvm =
        AgentJvm.app(
                "stale-" + client,
                client.equals("lettuce")
                    ? Clients.lettuceClasspath(lettuce)
                    : Clients.jedisClasspath(Clients.JEDIS_8),
                "io.hotkey.it.app.StaleOnErrorApp")
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "30s")
            .timeout(Duration.ofSeconds(90))
            .args(
                "--client",
                client,
                "--redis",
                redis.address(),
                "--key",
                key,
                "--seconds",
                Long.toString(seconds));
    if (serveStale != null) {
      jvm.prop("hotkey.cache.serve-stale-on-error", serveStale);
    }
    return jvm;
  }

  private static List<Executable> ran(ChildRun c) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(false, c.timedOut(), "timed out"));
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(() -> assertTrue(c.result(StaleOnErrorResults.WARMUP.hotViaJmx()), "never hot"));
    checks.add(
        () ->
            assertEquals(
                0, c.result(StaleOnErrorResults.WRONG), "answers that were never the value"));
    return checks;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void readsAreAnsweredWithTheLastValueWithinTheBoundAndFailAfterIt(String client) {
    ChildRun c = run(client, BOUND_MS + "ms");
    List<Executable> checks = ran(c);
    checks.add(
        () -> assertTrue(c.result(StaleOnErrorResults.STALE) > 100, "too few stale answers"));
    checks.add(
        () -> {
          // the bound counts from when the value was read, which was before Redis stopped
          long last = c.result(StaleOnErrorResults.LAST_STALE_AFTER_MS);
          assertTrue(last <= BOUND_MS, () -> "a stale answer " + last + " ms after the stop");
        });
    checks.add(
        () -> {
          long first = c.result(StaleOnErrorResults.FIRST_FAILURE_AFTER_MS);
          assertTrue(
              first >= 0 && first <= BOUND_MS + 1_000,
              () -> "reads still answered, or failing only from " + first + " ms");
        });
    checks.add(() -> assertTrue(c.stderrContains("answered from the key's last value")));
    Check.all(c, "serve stale within the bound", checks.stream());
  }

  /**
   * Redis hangs ({@code CLIENT PAUSE} of every client, as {@code DEBUG SLEEP} or a stalled network
   * would): once the agent's tracking connection finds its pings unanswered, hot reads go to Redis
   * and time out, and are answered with the last value within the bound; after it they fail with
   * Lettuce's timeout. A key that is not hot times out as without the agent. When Redis wakes up,
   * the late replies of the reads answered stale reach nothing the application holds.
   */
  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {"6 sync", "6 async", "6 reactive", "7 sync", "7 async"})
  void readsThatTimeOutOnAHungRedisAreAnsweredWithinTheBoundAndFailAfterIt(String lettuceAndApi) {
    String[] versionAndApi = lettuceAndApi.split(" ");
    String lettuce = versionAndApi[0].equals("6") ? Clients.LETTUCE_6 : Clients.LETTUCE_7;
    long pauseMs = BOUND_MS + 3_000;
    ChildRun c =
        app("lettuce", lettuce, BOUND_MS + "ms", 5)
            .args("--api", versionAndApi[1], "--cold", COLD)
            .run(
                name -> {
                  // closed after the test: a paused server may hold up even a goodbye
                  pauser = redis.jedis();
                  pauser.sendCommand(
                      Protocol.Command.CLIENT, "PAUSE", Long.toString(pauseMs), "ALL");
                  return "";
                });
    List<Executable> checks = ran(c);
    checks.add(
        () ->
            assertEquals(
                "RedisCommandTimeoutException",
                c.result(StaleOnErrorResults.COLD_FAILURE),
                "cold read"));
    checks.add(
        () -> {
          // the reads that hit the entry until the tracking connection's pings went unanswered
          // count too: the log and the counter tell the ones that timed out
          long last = c.result(StaleOnErrorResults.LAST_STALE_AFTER_MS);
          assertTrue(last >= 0 && last <= BOUND_MS, () -> "a stale answer " + last + " ms after");
        });
    checks.add(
        () -> assertTrue(c.result(StaleOnErrorResults.STALE_SERVED) > 0, "no read answered stale"));
    checks.add(
        () ->
            assertTrue(
                c.stderrContains("failed on its connection (io.lettuce.core.RedisCommandTimeout"),
                "no timeout answered stale"));
    checks.add(
        () -> {
          long first = c.result(StaleOnErrorResults.FIRST_FAILURE_AFTER_MS);
          assertTrue(
              first >= 0 && first <= BOUND_MS + TIMEOUT_MS + 1_000,
              () -> "reads still answered, or failing only from " + first + " ms");
        });
    Check.all(c, "serve stale while Redis hangs", checks.stream());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void withoutTheSettingReadsFailAtOnce(String client) {
    ChildRun c = run(client, null);
    List<Executable> checks = ran(c);
    checks.add(
        () -> {
          // until the agent notices Redis is gone (its tracking connection breaks), its entry is
          // current and served as any hit; after that, never
          long last = c.result(StaleOnErrorResults.LAST_STALE_AFTER_MS);
          assertTrue(last <= 500, () -> "the old value answered " + last + " ms after the stop");
        });
    checks.add(
        () -> {
          long first = c.result(StaleOnErrorResults.FIRST_FAILURE_AFTER_MS);
          assertTrue(first >= 0 && first <= 1_000, () -> "first failure after " + first + " ms");
        });
    Check.all(c, "no stale answers", checks.stream());
  }
}
