package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * (g) Invariant 1: an exception inside the agent never reaches the application. The diagnostic key
 * hotkey.debug.fail-every=3 makes every third agent hook throw internally.
 */
class AgentFailureIsolationIT extends RedisTestBase {

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_3, Clients.JEDIS_4, Clients.JEDIS_8})
  void internalFailuresNeverReachTheApplication(String version) {
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .prop("hotkey.debug.fail-every", "3")
            .name("failevery-" + version)
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "1500")
            .run();
    Check.all(
        c,
        "agent failures isolated",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "scenario did not complete"),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
        () -> assertTrue(c.agentActiveLine(), () -> "agent not active"),
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] internal error in \\S.* \\(\\d+ so far\\): "),
                () -> "no '[hotkey] internal error in <where> (<n> so far): <exception>' line"),
        () ->
            assertTrue(
                c.result(BasicResults.JMX.agentErrors()) > 0,
                () -> "JMX AgentErrors=" + c.result(BasicResults.JMX.agentErrors())));
  }
}
