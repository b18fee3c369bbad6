package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ExternalWriteResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * (d) Invariant 4: when another client (this test JVM, no agent) writes a hot key, the child sees
 * the new value within hotkey.cache.ttl (+ slack) and never the old one after that. Three rounds
 * per run; before each write the test checks the key was being served locally (else the proof would
 * be empty).
 */
class CrossJvmStalenessIT extends RedisTestBase {
  static final long TTL_MS = 500;
  static final long SLACK_MS = 1000;
  static final int ROUNDS = 3;

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_4, Clients.JEDIS_6, Clients.JEDIS_8})
  void anotherClientsWriteIsSeenWithinTheTtl(String version) {
    String key = "ext:key";
    try (Jedis j = redis.jedis()) {
      j.set(key, "ext-0");
    }
    Snapshots snaps = new Snapshots(redis::stats);
    for (int r = 1; r <= ROUNDS; r++) {
      String value = "ext-" + r;
      snaps.on(
          "written-" + r,
          s -> {
            try (Jedis j = redis.jedis()) {
              j.set(key, value);
            }
            return value;
          });
    }
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", TTL_MS + "ms")
            .name("external-" + version)
            .args(
                "--scenario",
                "external",
                "--redis",
                redis.address(),
                "--key",
                key,
                "--rounds",
                Integer.toString(ROUNDS))
            .run(snaps);
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(false, c.timedOut(), () -> "timed out"));
    checks.add(() -> assertEquals(0, c.exitCode(), () -> "exit code"));
    checks.add(() -> assertTrue(c.result(RunResults.DONE), () -> "not done"));
    checks.add(() -> assertTrue(c.promoted(key), () -> "never promoted"));
    for (int r = 1; r <= ROUNDS; r++) {
      int round = r;
      checks.add(
          () -> {
            long seen = c.result(ExternalWriteResults.seenAfterMs(round));
            assertTrue(
                seen >= 0 && seen <= TTL_MS + SLACK_MS,
                () ->
                    "round "
                        + round
                        + ": external write seen after "
                        + seen
                        + "ms (-1 = not within 5s),"
                        + " want <= ttl "
                        + TTL_MS
                        + "ms + "
                        + SLACK_MS
                        + "ms");
          });
      checks.add(
          () ->
              assertEquals(
                  0,
                  c.result(ExternalWriteResults.regressions(round)),
                  () -> "round " + round + ": the old value came back after the new one was seen"));
      checks.add(
          () ->
              assertEquals(
                  0,
                  c.result(ExternalWriteResults.holdWrong(round)),
                  () -> "round " + round + ": wrong values while holding"));
      checks.add(
          () -> {
            long holdReads = c.result(ExternalWriteResults.holdReads(round));
            long reached = snaps.calls("get", "hold-" + round, "hold-done-" + round);
            assertTrue(
                holdReads > 0 && reached < Math.max(5, holdReads / 10),
                () ->
                    "round "
                        + round
                        + ": the hot key was not served locally before the write ("
                        + reached
                        + " of "
                        + holdReads
                        + " reads reached Redis)");
          });
    }
    Check.all(c, "bounded staleness", checks.stream());
  }
}
