package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connections on their abnormal paths, with nearly every key hot ({@code threshold=1}): whatever a
 * pipeline or transaction left behind (an exception before sync or exec, a close with replies
 * unread, a timeout in the middle, a thread that died), every write made afterwards on the thread
 * is seen by the next read; and a connection that changes its user or database, or a pool of
 * another user, is never served what the other identity read. The child apps compare each answer
 * with what Redis itself gives a raw connection and report one {@code case.*} line per check.
 */
class ConnectionLifecycleIT extends RedisTestBase {

  static Stream<String> jedisVersions() {
    return Clients.MODERN.stream();
  }

  static Stream<String> lettuceVersions() {
    return Clients.LETTUCE.stream();
  }

  static Stream<Arguments> jedisVersionsAndJdks() {
    return Stream.concat(
        Clients.MODERN.stream().map(v -> Arguments.of(v, Jdk.JDK17)),
        Stream.of(Arguments.of(Clients.JEDIS_8, Jdk.JDK25)));
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("jedisVersionsAndJdks")
  void writesAfterAnAbandonedPipelineOrTransactionAreSeenAtOnce(String version, Jdk jdk) {
    ChildRun c = jedis(version, "abandon").jdk(jdk).run();
    assertEveryCaseOk(c, 9);
  }

  @ParameterizedTest(name = "jedis {0}")
  @MethodSource("jedisVersions")
  void aJedisConnectionIsOnlyServedWhatItsOwnIdentityMayRead(String version) {
    ChildRun c = jedis(version, "identity").run();
    assertEveryCaseOk(c, 5);
  }

  @ParameterizedTest(name = "lettuce {0}")
  @MethodSource("lettuceVersions")
  void aLettuceConnectionIsOnlyServedWhatItsOwnIdentityMayRead(String version) {
    ChildRun c =
        AgentJvm.app(
                "lettuce-lifecycle-" + version,
                Clients.lettuceClasspath(version),
                "io.hotkey.it.app.LettuceLifecycleApp")
            .prop("hotkey.detect.threshold", "1")
            // every key is hot at once and written between reads: none may be write-hot
            .prop("hotkey.detect.write-threshold", "1000000")
            .args("--redis", redis.address())
            .run();
    assertEveryCaseOk(c, 6);
  }

  /**
   * Seeded random sequences of commands, pipelines, transactions, abandons and closes on three
   * threads; {@code -Dhotkey.it.seed=N} replays one.
   */
  @ParameterizedTest(name = "jedis {0}")
  @MethodSource("jedisVersions")
  void randomSequencesNeverReadOlderThanAReturnedWrite(String version) {
    long seed = Long.getLong("hotkey.it.seed", System.nanoTime());
    ChildRun c =
        AgentJvm.app(
                "jedis-random-" + version,
                Clients.jedisClasspath(version),
                "io.hotkey.it.app.JedisRandomApp")
            .prop("hotkey.detect.threshold", "1")
            // every key is hot at once and written between reads: none may be write-hot
            .prop("hotkey.detect.write-threshold", "1000000")
            .args("--redis", redis.address(), "--seed", String.valueOf(seed), "--millis", "6000")
            .run();
    String replay = " (seed " + seed + ": -Dhotkey.it.seed=" + seed + " replays it)";
    Check.all(
        c,
        "random sequences" + replay,
        () -> assertEquals(false, c.timedOut(), "timed out"),
        () -> assertEquals(0, c.exitCode(), "exit code"),
        () -> assertEquals("true", c.result("done"), "not done"),
        () ->
            assertEquals(
                0,
                c.resultLong("random.violations"),
                () ->
                    c.result("random.violations")
                        + " violations"
                        + replay
                        + ": "
                        + c.result("random.examples")),
        () ->
            assertTrue(
                c.resultLong("random.reads") > 1000,
                () -> "too few reads: " + c.result("random.reads")),
        () ->
            assertTrue(
                Long.parseLong(c.result("end.jmx.CacheHits")) > c.resultLong("random.reads") / 10,
                () -> "the cache was hardly used: " + c.result("end.jmx.CacheHits") + " hits"),
        () -> assertEquals("0", c.result("end.jmx.AgentErrors"), "agent errors"));
  }

  private static AgentJvm jedis(String version, String scenario) {
    return AgentJvm.app(
            "jedis-" + scenario + "-" + version,
            Clients.jedisClasspath(version),
            "io.hotkey.it.app.JedisLifecycleApp")
        .prop("hotkey.detect.threshold", "1")
        // every key is hot at once and written between reads: none may be write-hot
        .prop("hotkey.detect.write-threshold", "1000000")
        .args("--scenario", scenario, "--redis", redis.address());
  }

  /**
   * Every {@code case.X} is "ok", each one was served locally before (where it says), and there are
   * as many as expected.
   */
  private static void assertEveryCaseOk(ChildRun c, int expectedCases) {
    Map<String, String> cases =
        new TreeMap<>(
            c.results().entrySet().stream()
                .filter(e -> e.getKey().startsWith("case."))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    Map<String, String> outcomes = new TreeMap<>(cases);
    outcomes.keySet().removeIf(k -> k.endsWith(".servedLocally"));
    Stream<Executable> ran =
        Stream.of(
            () -> assertEquals(false, c.timedOut(), "timed out"),
            () -> assertEquals(0, c.exitCode(), "exit code"),
            () -> assertEquals("true", c.result("done"), "not done"),
            () ->
                assertEquals(
                    expectedCases, outcomes.size(), () -> "cases reported: " + outcomes.keySet()),
            () -> assertEquals("0", c.result("end.jmx.AgentErrors"), "agent errors"));
    Stream<Executable> each =
        outcomes.entrySet().stream().map(e -> () -> assertEquals("ok", e.getValue(), e.getKey()));
    Stream<Executable> served =
        cases.entrySet().stream()
            .filter(e -> e.getKey().endsWith(".servedLocally"))
            .map(
                e ->
                    () ->
                        assertTrue(
                            Boolean.parseBoolean(e.getValue()),
                            e.getKey()
                                + ": the key was never served locally, so the case proves nothing"));
    Check.all(c, "lifecycle cases", Stream.of(ran, each, served).flatMap(s -> s));
  }
}
