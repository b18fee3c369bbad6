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

/**
 * {@code hotkey.cache.serve-stale-on-error}: Redis is stopped while a hot key is served; its reads
 * are answered with the last value for as long as that value is younger than the bound, and fail
 * after it, as they would without the agent. Without the setting they fail as soon as the agent
 * noticed Redis is gone.
 */
class ServeStaleIT {
  static final long BOUND_MS = 3_000;
  private RedisServer redis;

  @AfterEach
  void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  private ChildRun run(String client, String serveStale) {
    redis = RedisServers.start();
    String key = "stale:price";
    try (Jedis j = redis.jedis()) {
      j.set(key, "42");
    }
    AgentJvm jvm =
        AgentJvm.app(
                "stale-" + client,
                client.equals("lettuce")
                    ? Clients.lettuceClasspath(Clients.LETTUCE_6)
                    : Clients.jedisClasspath(Clients.JEDIS_8),
                "io.hotkey.it.app.StaleOnErrorApp")
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "30s")
            .timeout(Duration.ofSeconds(90))
            .args("--client", client, "--redis", redis.address(), "--key", key, "--seconds", "6");
    if (serveStale != null) {
      jvm.prop("hotkey.cache.serve-stale-on-error", serveStale);
    }
    return jvm.run(
        name -> {
          redis.stop();
          return "";
        });
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
