package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.JedisRandomResults;
import io.hotkey.it.app.results.LifecycleResults;
import io.hotkey.it.app.results.RunResults;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connections on their abnormal paths, with nearly every key hot ({@code threshold=1}): whatever a
 * pipeline or transaction left behind (an exception before sync or exec, a close with replies
 * unread, a timeout in the middle, a thread that died), every write made afterwards on the thread
 * is seen by the next read; and a connection that changes its user or database, or a pool of
 * another user, is never served what the other identity read. The child apps compare each answer
 * with what Redis itself gives a raw connection and report one {@link LifecycleResults#OUTCOME} per
 * check. Two cases run at a time, each on a Redis of its own.
 */
@AfterTheSideLane
class ConnectionLifecycleIT {
  @RegisterExtension static final RedisLanes lanes = new RedisLanes();

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

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("jedisVersionsAndJdks")
  void writesAfterAnAbandonedPipelineOrTransactionAreSeenAtOnceAndAClosedClientReadsNothing(
      String version, Jdk jdk) throws InterruptedException {
    ChildRun c = lanes.fromFreeServer(redis -> jedis(redis, version, "abandon").jdk(jdk).run());
    assertEveryCaseOk(c, 10);
  }

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "jedis {0}")
  @MethodSource("jedisVersions")
  void aJedisConnectionIsOnlyServedWhatItsOwnIdentityMayRead(String version)
      throws InterruptedException {
    ChildRun c = lanes.fromFreeServer(redis -> jedis(redis, version, "identity").run());
    assertEveryCaseOk(c, 5);
  }

  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "lettuce {0}")
  @MethodSource("lettuceVersions")
  void aLettuceConnectionIsOnlyServedWhatItsOwnIdentityMayRead(String version)
      throws InterruptedException {
    ChildRun c =
        lanes.fromFreeServer(
            redis ->
                everyKeyHot(
                        "lettuce-lifecycle-" + version,
                        Clients.lettuceClasspath(version),
                        "io.hotkey.it.app.LettuceLifecycleApp")
                    .args("--redis", redis.address())
                    .run());
    // Lettuce closes the channel after a codec fails to encode from 6.8.2 and 7.7 on (before, it
    // leaves it out of sync): only there are the encoderFailure cases run, without and with an
    // application's command listener
    assertEveryCaseOk(c, version.equals(Clients.LETTUCE_7) ? 9 : 7);
  }

  /**
   * {@code serve-stale-on-error} answers a read whose connection lost its channel from the entries
   * it had; a connection the application closed fails its reads all the same, as Lettuce does.
   */
  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "lettuce {0}")
  @MethodSource("lettuceVersions")
  void aClosedLettuceConnectionIsNeverAnsweredStale(String version) throws InterruptedException {
    ChildRun c =
        lanes.fromFreeServer(
            redis ->
                everyKeyHot(
                        "lettuce-closed-stale-" + version,
                        Clients.lettuceClasspath(version),
                        "io.hotkey.it.app.LettuceLifecycleApp")
                    .prop("hotkey.cache.serve-stale-on-error", "30s")
                    .args("--redis", redis.address(), "--closed-only", "true")
                    .run());
    assertEveryCaseOk(c, 1);
  }

  /**
   * Seeded random sequences of commands, pipelines, transactions, abandons and closes on three
   * threads; {@code -Dhotkey.it.seed=N} replays one.
   */
  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "jedis {0}")
  @MethodSource("jedisVersions")
  void randomSequencesNeverReadOlderThanAReturnedWrite(String version) throws InterruptedException {
    long seed = Long.getLong("hotkey.it.seed", System.nanoTime());
    ChildRun c =
        lanes.fromFreeServer(
            redis ->
                everyKeyHot(
                        "jedis-random-" + version,
                        Clients.jedisClasspath(version),
                        "io.hotkey.it.app.JedisRandomApp")
                    .args(
                        "--redis",
                        redis.address(),
                        "--seed",
                        String.valueOf(seed),
                        "--millis",
                        "6000")
                    .run());
    String replay = " (seed " + seed + ": -Dhotkey.it.seed=" + seed + " replays it)";
    Check.all(
        c,
        "random sequences" + replay,
        () -> assertEquals(false, c.timedOut(), "timed out"),
        () -> assertEquals(0, c.exitCode(), "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), "not done"),
        () ->
            assertEquals(
                0,
                c.result(JedisRandomResults.VIOLATIONS),
                () ->
                    c.result(JedisRandomResults.VIOLATIONS)
                        + " violations"
                        + replay
                        + ": "
                        + c.result(JedisRandomResults.EXAMPLES)),
        () ->
            assertTrue(
                c.result(JedisRandomResults.READS) > 1000,
                () -> "too few reads: " + c.result(JedisRandomResults.READS)),
        () ->
            assertTrue(
                // a sanity bound, not a hit rate: the seeded mix of writes decides how many reads
                // find an entry (10% to 32% across runs)
                c.result(RunResults.END_JMX.cacheHits()) > c.result(JedisRandomResults.READS) / 25,
                () ->
                    "the cache was hardly used: "
                        + c.result(RunResults.END_JMX.cacheHits())
                        + " hits"),
        () -> assertEquals(0, c.result(RunResults.END_JMX.agentErrors()), "agent errors"));
  }

  private static AgentJvm jedis(RedisServer redis, String version, String scenario) {
    return everyKeyHot(
            "jedis-" + scenario + "-" + version,
            Clients.jedisClasspath(version),
            "io.hotkey.it.app.JedisLifecycleApp")
        .args("--scenario", scenario, "--redis", redis.address());
  }

  private static AgentJvm everyKeyHot(String name, String classpath, String main) {
    return AgentJvm.app(name, classpath, main)
        .prop("hotkey.detect.threshold", "1")
        // every key is hot at once and written between reads: none may be write-hot
        .prop("hotkey.detect.write-threshold", "1000000");
  }

  /**
   * Every case's outcome is "ok", each one was served locally before (where it says), and there are
   * as many as expected.
   */
  private static void assertEveryCaseOk(ChildRun c, int expectedCases) {
    Map<String, String> outcomes = c.results(LifecycleResults.OUTCOME);
    Map<String, Boolean> served = c.results(LifecycleResults.SERVED_LOCALLY);
    Stream<Executable> ran =
        Stream.of(
            () -> assertEquals(false, c.timedOut(), "timed out"),
            () -> assertEquals(0, c.exitCode(), "exit code"),
            () -> assertTrue(c.result(RunResults.DONE), "not done"),
            () ->
                assertEquals(
                    expectedCases, outcomes.size(), () -> "cases reported: " + outcomes.keySet()),
            () -> assertEquals(0, c.result(RunResults.END_JMX.agentErrors()), "agent errors"));
    Stream<Executable> each =
        outcomes.entrySet().stream()
            .map(
                e ->
                    () ->
                        assertEquals(
                            "ok", e.getValue(), LifecycleResults.OUTCOME.of(e.getKey()).name()));
    Stream<Executable> servedBefore =
        served.entrySet().stream()
            .map(
                e ->
                    () ->
                        assertTrue(
                            e.getValue(),
                            LifecycleResults.SERVED_LOCALLY.of(e.getKey())
                                + ": the key was never served locally, so the case proves nothing"));
    Check.all(c, "lifecycle cases", Stream.of(ran, each, servedBefore).flatMap(s -> s));
  }
}
