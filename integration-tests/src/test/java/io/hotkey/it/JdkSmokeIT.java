package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Smoke: the agent starts, logs its active line, promotes and keeps the app correct on JDK 17 and
 * 25.
 */
class JdkSmokeIT extends RedisTestBase {

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    for (Jdk jdk : Jdk.values()) {
      for (String v : List.of(Clients.JEDIS_5, Clients.JEDIS_6, Clients.JEDIS_7)) {
        a.add(Arguments.of(v, jdk));
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void agentStartsAndAppIsCorrect(String version, Jdk jdk) {
    CommandStats before = redis.stats();
    ChildRun c =
        AgentJvm.jedisApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("smoke-" + version)
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "1200")
            .run();
    CommandStats used = redis.stats().minus(before);
    Check.all(
        c,
        "smoke",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertTrue(
                c.result(RunResults.JAVA_VERSION).startsWith(jdk.major()),
                () -> "ran on " + c.result(RunResults.JAVA_VERSION)),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
        () -> assertTrue(c.agentActiveLine(), () -> "no '[hotkey] active:' line"),
        () -> assertFalse(c.stderrContains("[hotkey] internal error"), () -> "internal errors"),
        () -> assertTrue(c.promoted("basic:str"), () -> "basic:str not promoted"),
        () ->
            assertTrue(
                used.calls("get") < c.result(BasicResults.GETS) / 2,
                () ->
                    "hot GETs were not served locally: "
                        + used.calls("get")
                        + " of "
                        + c.result(BasicResults.GETS)
                        + " reached Redis"));
  }

  /**
   * docs/observable-contract.md: "Log lines go to the application's stderr, one line each, prefixed
   * [hotkey] ".
   */
  @Test
  void agentLogLinesStartWithTheContractPrefix() {
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .hotkeyTestDefaults()
            .name("logformat")
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "600")
            .run();
    Check.all(
        c,
        "log format",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertFalse(c.hotkeyLines().isEmpty(), () -> "no [hotkey] lines at all"),
        () ->
            assertEquals(
                List.of(),
                c.misprefixedHotkeyLines(),
                () ->
                    "agent lines must start with '[hotkey] ' (nothing before it, e.g. no timestamp)"));
  }
}
