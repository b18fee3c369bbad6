package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.RefreshAheadResults;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * {@code hotkey.cache.refresh-ahead}: four threads read a hot key without pause while its entry
 * lives 1 s; past half of that one read refreshes it and the others are still served, so every read
 * that reaches Redis is a refresh and none finds the entry expired (and parks or waits behind a
 * fill). Without the setting, the entry expires once a TTL and reads miss.
 */
@SideLane
class RefreshAheadIT extends RedisTestBase {
  static final int SECONDS = 5;

  private ChildRun run(String client, String refreshAhead) {
    String key = "refresh:" + client;
    try (Jedis j = redis.jedis()) {
      j.set(key, "v");
    }
    AgentJvm jvm =
        AgentJvm.app(
                "refresh-" + client,
                Clients.newestClasspath(client),
                "io.hotkey.it.app.RefreshAheadApp")
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "1s")
            .prop("hotkey.cache.invalidation", "ttl")
            .timeout(Duration.ofSeconds(90))
            .args(
                "--client",
                client,
                "--redis",
                redis.address(),
                "--key",
                key,
                "--seconds",
                Integer.toString(SECONDS));
    if (refreshAhead != null) {
      jvm.prop("hotkey.cache.refresh-ahead", refreshAhead);
    }
    return jvm.run(name -> "");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void everyReadThatReachesRedisIsARefreshAheadOfExpiry(String client) {
    ChildRun c = run(client, "50%");
    Check.all(
        c,
        "refresh ahead",
        () -> assertEquals(0, c.exitCode(), "exit code"),
        () -> assertTrue(c.result(RefreshAheadResults.WARMUP.hotViaJmx()), "never hot"),
        () -> {
          long refreshes = c.result(RefreshAheadResults.REFRESHES);
          assertTrue(
              refreshes >= SECONDS,
              () -> refreshes + " refreshes in " + SECONDS + " s of a 1 s TTL refreshed at 50%");
        },
        () ->
            assertEquals(
                c.result(RefreshAheadResults.REFRESHES),
                c.result(RefreshAheadResults.MISSES),
                "reads that went to Redis without being a refresh (the entry had expired)"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void withoutItTheEntryExpiresAndReadsMiss(String client) {
    ChildRun c = run(client, null);
    Check.all(
        c,
        "no refresh ahead",
        () -> assertEquals(0, c.exitCode(), "exit code"),
        () ->
            assertEquals(
                0, c.result(RefreshAheadResults.REFRESHES), "refreshes without the setting"),
        () ->
            assertTrue(
                c.result(RefreshAheadResults.MISSES) >= SECONDS - 1,
                () ->
                    c.result(RefreshAheadResults.MISSES)
                        + " misses in "
                        + SECONDS
                        + " s of a 1 s TTL"));
  }
}
