package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.CoolDownResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Detection, the other way: a hot key whose traffic drops to ~20/s (threshold 200/s, window 1s,
 * cool-down 1s) is demoted (log line + JMX), and its reads go to Redis again. Also the periodic
 * top-keys report line.
 */
class DemotionIT extends RedisTestBase {

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_4, Clients.JEDIS_8})
  void aKeyThatCoolsDownIsDemoted(String version) {
    String key = "cd:key";
    try (Jedis j = redis.jedis()) {
      j.set(key, "cool");
    }
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .prop("hotkey.detect.cool-down", "1s")
            .prop("hotkey.report.interval", "1s")
            .name("cooldown-" + version)
            .args(
                "--scenario",
                "cooldown",
                "--redis",
                redis.address(),
                "--key",
                key,
                "--max-wait-ms",
                "8000")
            .run(snaps);
    long demotedAfter = c.result(CoolDownResults.DEMOTED_AFTER_MS);
    Check.all(
        c,
        "demotion",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () -> assertEquals(0, c.result(CoolDownResults.WRONG), () -> "wrong values"),
        () -> assertTrue(c.promoted(key), () -> "never promoted"),
        () ->
            assertTrue(
                c.result(CoolDownResults.WARMUP.hotViaJmx()), () -> "JMX never showed it hot"),
        () ->
            assertTrue(
                demotedAfter >= 0 && demotedAfter <= 6000,
                () ->
                    "JMX HotKeys still listed the key "
                        + (demotedAfter < 0 ? "after 8s" : demotedAfter + "ms")
                        + " after its rate fell to ~20/s (window 1s, cool-down 1s)"),
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] hot key demoted: key=\"cd:key\" rate=\\d+/s"),
                () -> "no '[hotkey] hot key demoted: key=\"cd:key\" rate=<n>/s' line"),
        () ->
            assertEquals(
                10,
                snaps.calls("get", "cold-reads", "cold-reads-done"),
                () ->
                    "reads of a demoted key must reach Redis: "
                        + snaps.delta("cold-reads", "cold-reads-done")),
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] top keys: \"cd:key\" \\d+/s \\d+% reads"),
                () ->
                    "no periodic '[hotkey] top keys: \"cd:key\" <n>/s <n>% reads' line (report.interval=1s)"));
  }
}
