package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * (f) Invariant 1: a bad configuration leaves the application running unchanged (agent inactive,
 * precise message naming the key), unless hotkey.fail-fast=true, which stops the JVM.
 */
class BadConfigIT extends RedisTestBase {

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_4, Clients.JEDIS_8})
  void badValueLeavesTheApplicationUnchanged(String version) {
    BasicRun run =
        BasicRun.run(
            AgentJvm.jedisApp(version).hotkeyTestDefaults().prop("hotkey.detect.window", "banana"),
            redis,
            "badconfig-" + version,
            1500);
    ChildRun c = run.child();
    CommandStats used = run.used();
    List<String> err = c.stderr();
    int errorLine = c.stderrIndexOf("^\\[hotkey\\] configuration error, agent inactive:");
    Check.all(
        c,
        "bad configuration",
        run.ranWithRedisValuesAnd(
            () ->
                assertTrue(
                    errorLine >= 0,
                    () -> "no '[hotkey] configuration error, agent inactive:' line"),
            () ->
                assertTrue(
                    errorLine >= 0
                        && err.stream()
                            .skip(errorLine)
                            .anyMatch(l -> l.contains("hotkey.detect.window")),
                    () -> "the configuration error does not name hotkey.detect.window"),
            () ->
                assertTrue(
                    errorLine >= 0
                        && errorLine + 1 < err.size()
                        && err.get(errorLine + 1).matches("^\\s+\\S.*"),
                    () -> "the problems are not listed on indented lines after the header"),
            () -> assertFalse(c.agentActiveLine(), () -> "agent says active"),
            () ->
                assertFalse(
                    c.stderrContains("[hotkey] hot key promoted"),
                    () -> "inactive agent promoted a key"),
            () ->
                assertEquals(
                    c.result(BasicResults.GETS),
                    used.calls("get"),
                    () ->
                        "every GET must reach Redis when the agent is inactive; commandstats "
                            + used)));
  }

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_8})
  void failFastStopsTheJvm(String version) {
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .prop("hotkey.detect.window", "banana")
            .prop("hotkey.fail-fast", "true")
            .name("failfast-" + version)
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "300")
            .run();
    Check.all(
        c,
        "fail-fast",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertNotEquals(0, c.exitCode(), () -> "fail-fast must stop the JVM"),
        () -> assertTrue(c.stderrContains("hotkey.detect.window"), () -> "names the key"));
  }
}
