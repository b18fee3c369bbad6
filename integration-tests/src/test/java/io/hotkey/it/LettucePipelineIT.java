package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.LettucePipelineResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lettuce pipelines of SET and GET of hot keys on one shared connection, from several threads:
 * every GET returns exactly what Redis would have (the value of the SET its thread sent just before
 * it), and the GETs sent behind those SETs are answered by the agent (parked until the SET is
 * answered, then given its value) instead of reaching Redis (commandstats).
 */
class LettucePipelineIT extends RedisTestBase {

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6, Clients.LETTUCE_7})
  void getsBehindSetsReadEachSetsValueWithoutReachingRedis(String version) {
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.app(
                "lettuce-pipeline-" + version,
                Clients.lettuceClasspath(version),
                "io.hotkey.it.app.LettucePipelineApp")
            .hotkeyTestDefaults()
            .args("--redis", redis.address(), "--rounds", "400", "--threads", "4")
            .run(snaps);
    long gets = c.result(LettucePipelineResults.GETS);
    long reached = snaps.calls("get", "pipe", "pipe-done");
    long sets = snaps.calls("set", "pipe", "pipe-done");
    System.out.println(
        "[it] lettuce pipeline "
            + version
            + ": "
            + reached
            + " of "
            + gets
            + " GETs reached Redis ("
            + sets
            + " SETs); jmx hits="
            + c.result(LettucePipelineResults.JMX.cacheHits()));
    Check.all(
        c,
        "lettuce pipeline",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertEquals(
                0,
                c.result(LettucePipelineResults.MISMATCHES),
                () ->
                    "a GET did not read its own SET: " + c.result(LettucePipelineResults.EXAMPLES)),
        () -> assertEquals(4L * 400 * 9, gets, () -> "GETs checked"),
        () -> assertEquals(4L * 400 * 8, sets, () -> "every SET reaches Redis"),
        () ->
            assertTrue(
                reached < gets / 4,
                () ->
                    reached
                        + " of "
                        + gets
                        + " GETs reached Redis: the ones behind SETs were not answered locally"),
        () ->
            assertEquals(
                0, c.result(LettucePipelineResults.JMX.agentErrors()), () -> "agent errors"));
  }
}
