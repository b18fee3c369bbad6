package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.LettuceScenarioResults;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * The Lettuce 5 module's version matrix: the smoke scenario ({@code compat}: only API that Lettuce
 * 5.0 shares with 6 and 7) against the oldest and newest release of every 5.x minor line, one child
 * JVM each against a shared Redis. Hot keys read through sync, async and reactive are served; a
 * write by every API is read back at once; a hot key written by this (another) process is
 * invalidated by tracking, which on Lettuce 5 (RESP2 only) runs on the agent's own connection; and
 * pipelined reads (manual flushing) of a hot key all reach Redis.
 */
class Lettuce5IT extends RedisTestBase {
  /**
   * Rounds of 8 reads (4 GETs, 1 HGETALL, 3 LRANGEs) of the same keys: far above the 200/s
   * threshold.
   */
  static final int N = 1500;

  static final String LIST = "lt:list";

  static List<String> versions() {
    return Clients.LETTUCE_5_MATRIX;
  }

  @ParameterizedTest(name = "lettuce {0}")
  @MethodSource("versions")
  void smokeScenarioIsServedAndNeverStale(String version) {
    Snapshots snaps =
        new Snapshots(redis::stats)
            .on(
                "compat-foreign",
                sync -> {
                  try (Jedis other = redis.jedis()) {
                    other.rpush(LIST, "foreign");
                  }
                  return "";
                });
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .hotkeyTestDefaults()
            .name("lettuce5-" + version)
            .args("--scenario", "compat", "--redis", redis.address(), "--n", Integer.toString(N))
            .run(snaps);
    LettuceIT.ran(c);
    long reads = c.result(LettuceScenarioResults.COMPAT_READS);
    long reached = snaps.calls(LettuceIT.READS, "compat", "compat-done");
    long served = c.result(LettuceScenarioResults.COMPAT_SERVED_READS);
    long servedReached = snaps.calls("lrange", "compat-served", "compat-foreign");
    long pipelined = c.result(LettuceScenarioResults.COMPAT_PIPELINED_READS);
    long pipelinedReached = snaps.calls("lrange", "compat-pipeline", "compat-pipeline-done");
    long foreignMillis = c.result(LettuceScenarioResults.COMPAT_FOREIGN_WRITE_MILLIS);
    System.out.println(
        "[it] lettuce "
            + version
            + ": "
            + reached
            + " of "
            + reads
            + " hot reads reached Redis, "
            + servedReached
            + " of "
            + served
            + " reads of "
            + LIST
            + ", "
            + pipelinedReached
            + " of "
            + pipelined
            + " pipelined; another process's write read back after "
            + foreignMillis
            + " ms; jmx CacheHits="
            + c.result(LettuceScenarioResults.COMPAT_JMX.cacheHits()));
    Check.all(
        c,
        "lettuce " + version + " with the agent",
        () ->
            assertTrue(
                c.stderrContains("[hotkey] instrumented io.lettuce.core.RedisChannelHandler"),
                () -> "RedisChannelHandler not instrumented"),
        () -> assertFalse(c.stderrContains("internal error"), () -> "an internal error line"),
        () ->
            assertEquals(
                0, c.result(LettuceScenarioResults.COMPAT_JMX.agentErrors()), () -> "agent errors"),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.COMPAT_MISMATCHES),
                () ->
                    "values differ from Redis' or a write was not seen: "
                        + c.result(LettuceScenarioResults.COMPAT_EXAMPLES)),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.COMPAT_SHARED_OBJECTS),
                () -> "a result object was shared"),
        () -> assertTrue(c.promoted("lt:str") && c.promoted(LIST), () -> "keys not promoted"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.COMPAT_JMX.commands()) >= reads,
                () -> "commands not counted"),
        () ->
            assertTrue(
                reached < reads / 2, () -> reached + " of " + reads + " hot reads reached Redis"),
        () ->
            assertTrue(
                servedReached < served / 2,
                () -> servedReached + " of " + served + " reads of the hot list reached Redis"),
        () ->
            assertEquals(
                pipelined, pipelinedReached, () -> "a pipelined read was answered locally"),
        () ->
            assertTrue(
                foreignMillis >= 0, () -> "another process's write was not read back within 10 s"));
  }
}
