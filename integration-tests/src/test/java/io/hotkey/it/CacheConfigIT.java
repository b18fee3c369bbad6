package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.HotReadResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/**
 * The cache's configuration contract: replies over hotkey.cache.max-entry-bytes are never cached,
 * keys matching hotkey.cache.exclude are never served locally (but are still detected), and
 * hotkey.cache.enabled=false turns local serving off while detection goes on.
 */
class CacheConfigIT extends RedisTestBase {
  static final int N = 1000;

  private ChildRun hotRead(String name, Snapshots snaps, String keys, String... props) {
    AgentJvm jvm =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .hotkeyTestDefaults()
            .name(name)
            .args(
                "--scenario",
                "hotread",
                "--redis",
                redis.address(),
                "--keys",
                keys,
                "--n",
                Integer.toString(N));
    for (int i = 0; i + 1 < props.length; i += 2) {
      jvm.prop(props[i], props[i + 1]);
    }
    return jvm.run(snaps);
  }

  private static Executable servedLocally(Snapshots s, String key) {
    return () -> {
      long reached = s.calls("get", "read-" + key, "read-done-" + key);
      assertTrue(
          reached < N * 0.05,
          () ->
              key
                  + " should be served locally, but "
                  + reached
                  + " of "
                  + N
                  + " GETs reached Redis");
    };
  }

  private static Executable allReachRedis(Snapshots s, String key, String why) {
    return () ->
        assertEquals(
            N,
            s.calls("get", "read-" + key, "read-done-" + key),
            () -> key + ": every GET must reach Redis (" + why + ")");
  }

  private static List<Executable> ran(ChildRun c, String... keys) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertFalse(c.timedOut(), () -> "timed out"));
    checks.add(() -> assertEquals(0, c.exitCode(), () -> "exit code"));
    checks.add(() -> assertTrue(c.result(RunResults.DONE), () -> "not done"));
    for (String k : keys) {
      checks.add(
          () ->
              assertEquals(0, c.result(HotReadResults.mismatches(k)), () -> k + ": wrong values"));
      checks.add(
          () ->
              assertTrue(c.promoted(k), () -> k + " not promoted (detection goes on regardless)"));
    }
    return checks;
  }

  @Test
  void oversizedRepliesAndExcludedKeysAreNeverServedLocally() {
    try (Jedis j = redis.jedis()) {
      j.set("small:val", "x".repeat(100));
      j.set("big:val", "y".repeat(4096));
      j.set("nocache:val", "z".repeat(100));
    }
    Snapshots s = new Snapshots(redis::stats);
    ChildRun c =
        hotRead(
            "cacheconfig",
            s,
            "small:val,big:val,nocache:val",
            "hotkey.cache.max-entry-bytes",
            "1KB",
            "hotkey.cache.exclude",
            "nocache:*");
    List<Executable> checks = ran(c, "small:val", "big:val", "nocache:val");
    checks.add(servedLocally(s, "small:val"));
    checks.add(allReachRedis(s, "big:val", "a 4KB reply with hotkey.cache.max-entry-bytes=1KB"));
    checks.add(allReachRedis(s, "nocache:val", "hotkey.cache.exclude=nocache:*"));
    Check.all(c, "max-entry-bytes and exclude", checks.stream());
  }

  @Test
  void cacheDisabledMeansDetectionOnly() {
    try (Jedis j = redis.jedis()) {
      j.set("off:val", "v");
    }
    Snapshots s = new Snapshots(redis::stats);
    ChildRun c = hotRead("cacheoff", s, "off:val", "hotkey.cache.enabled", "false");
    List<Executable> checks = ran(c, "off:val");
    checks.add(allReachRedis(s, "off:val", "hotkey.cache.enabled=false"));
    checks.add(
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] active: .* cache=off"),
                () -> "active line says cache=off"));
    Check.all(c, "cache disabled", checks.stream());
  }
}
