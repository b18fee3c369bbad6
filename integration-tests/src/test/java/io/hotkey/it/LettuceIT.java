package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.LettuceScenarioResults;
import io.hotkey.it.app.results.ReadYourWritesResults;
import io.hotkey.it.app.results.ResultName;
import io.hotkey.it.app.results.RunResults;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lettuce 6.x and 7.x: detection; reads of hot keys through sync, async and reactive APIs with
 * String, byte[] and an application's own JSON codec answered without Redis (commandstats), values
 * equal to Redis', no result object shared; MULTI/EXEC and manual flushing untouched; writes
 * invalidate; a returned write is seen by every thread (serving and read-your-writes on JDK 17 and,
 * for Lettuce 7, JDK 25); an internal agent failure never reaches the application;
 * RedisClusterClient on a real 3-master cluster.
 */
class LettuceIT extends RedisTestBase {
  static final int N = 300;
  static final List<String> READS = List.of("get", "hgetall", "lrange");
  static final List<String> HOT_KEYS =
      List.of("lt:str", "lt:hash", "lt:list", "lt:json", "lt:json:hash", "lt:json:list");
  static RedisCluster cluster;

  /** Lettuce 6 and 7 on JDK 17, and Lettuce 7 on JDK 25. */
  static Stream<Arguments> versionsAndJdks() {
    return Stream.of(
        Arguments.of(Clients.LETTUCE_6, Jdk.JDK17),
        Arguments.of(Clients.LETTUCE_7, Jdk.JDK17),
        Arguments.of(Clients.LETTUCE_7, Jdk.JDK25));
  }

  @BeforeAll
  static void useTheSharedCluster() {
    cluster = RedisServers.sharedCluster();
  }

  static void ran(ChildRun c) {
    ran(c, Jdk.JDK17);
  }

  static void ran(ChildRun c, Jdk jdk) {
    Check.all(
        c,
        "ran",
        () -> assertEquals(false, c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertTrue(
                c.result(RunResults.JAVA_VERSION).startsWith(jdk.major()),
                () -> "ran on java " + c.result(RunResults.JAVA_VERSION) + ", not " + jdk));
  }

  @ParameterizedTest(name = "lettuce {0} on {1}")
  @MethodSource("versionsAndJdks")
  void hotReadsAreServedLocallyAndTransactionsAreNot(String version, Jdk jdk) {
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("lettuce-serve-" + version)
            .args("--scenario", "serve", "--redis", redis.address(), "--n", Integer.toString(N))
            .run(snaps);
    ran(c, jdk);
    long reads = c.result(LettuceScenarioResults.SERVE_READS);
    long reached = snaps.calls(READS, "serve", "serve-done");
    long jsonReads = c.result(LettuceScenarioResults.JSON_READS);
    long jsonReached = snaps.calls(READS, "json", "json-done");
    long untouched = snaps.calls("get", "untouched", "untouched-done");
    System.out.println(
        "[it] lettuce "
            + version
            + " on "
            + jdk
            + ": "
            + reached
            + " of "
            + reads
            + " reads reached Redis; JSON codec: "
            + jsonReached
            + " of "
            + jsonReads
            + " reads reached Redis, "
            + c.result(LettuceScenarioResults.JSON_DECODES)
            + " values decoded for "
            + c.result(LettuceScenarioResults.JSON_PRODUCTS)
            + " products returned; "
            + untouched
            + " GETs in MULTI/manual flush reached Redis; jmx hits="
            + c.result(LettuceScenarioResults.SERVE_JMX.cacheHits()));
    Check.all(
        c,
        "lettuce serve",
        () -> assertTrue(c.agentActiveLine(), () -> "no active line"),
        () ->
            assertTrue(c.stderrContains("lettuce-6+"), () -> "lettuce instrumentation not listed"),
        () ->
            assertTrue(
                c.stderrContains("[hotkey] instrumented io.lettuce.core.RedisChannelHandler"),
                () -> "RedisChannelHandler not instrumented"),
        () ->
            assertTrue(
                c.stderrContains("[hotkey] instrumented io.lettuce.core.output.CommandOutput"),
                () -> "CommandOutput did not gain the agent's field"),
        () ->
            assertTrue(
                c.stderrContains("[hotkey] instrumented io.lettuce.core.protocol.CommandArgs"),
                () -> "CommandArgs did not gain the agent's field"),
        () -> assertTrue(HOT_KEYS.stream().allMatch(c::promoted), () -> "keys not promoted"),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.SERVE_MISMATCHES),
                () ->
                    "values differ from Redis': "
                        + c.result(LettuceScenarioResults.SERVE_EXAMPLES)),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.SERVE_SHARED_OBJECTS),
                () -> "a result object was shared"),
        () ->
            assertTrue(
                reached < reads / 20, () -> reached + " of " + reads + " reads reached Redis"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.JSON_TRUTH_IS_WHAT_WAS_WRITTEN),
                () -> "the JSON values Redis returns (in MULTI) are not the products written"),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.JSON_MISMATCHES),
                () ->
                    "JSON codec: decoded values differ from "
                        + "Redis': "
                        + c.result(LettuceScenarioResults.JSON_EXAMPLES)),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.JSON_SHARED_OBJECTS),
                () -> "JSON codec: a result object (map, list, product or its tags) was shared"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.JSON_DECODES)
                    >= c.result(LettuceScenarioResults.JSON_PRODUCTS),
                () ->
                    "JSON codec: "
                        + c.result(LettuceScenarioResults.JSON_DECODES)
                        + " decodes for "
                        + c.result(LettuceScenarioResults.JSON_PRODUCTS)
                        + " products: results not built by the application's codec"),
        () ->
            assertTrue(
                jsonReached < jsonReads / 20,
                () -> "JSON codec: " + jsonReached + " of " + jsonReads + " reads reached Redis"),
        () ->
            assertEquals(
                c.result(LettuceScenarioResults.UNTOUCHED_GETS),
                untouched,
                () -> "GETs inside MULTI / with manual flushing must all reach Redis"),
        () ->
            assertEquals(
                0,
                c.result(LettuceScenarioResults.FINAL_MISMATCHES),
                () -> "a write was not seen: " + c.result(LettuceScenarioResults.FINAL_EXAMPLES)),
        () ->
            assertFalse(
                c.result(LettuceScenarioResults.SERVE_MBEAN_SERVER_BEFORE_JMX),
                () -> "the JVM had an MBean server before the application used JMX"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.SERVE_JMX.registered()),
                () -> "the MBean was not registered once the application used JMX"),
        () ->
            assertEquals(
                0, c.result(LettuceScenarioResults.SERVE_JMX.agentErrors()), () -> "agent errors"));
  }

  @ParameterizedTest(name = "lettuce {0} on {1}")
  @MethodSource("versionsAndJdks")
  void aReturnedWriteIsSeenByEveryThread(String version, Jdk jdk) {
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "5s")
            .name("lettuce-ryw-" + version)
            .args("--scenario", "ryw", "--redis", redis.address(), "--millis", "3000")
            .run(snaps);
    ran(c, jdk);
    long reads = c.result(ReadYourWritesResults.READS);
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    System.out.println(
        "[it] lettuce ryw "
            + version
            + " on "
            + jdk
            + ": reads="
            + reads
            + " writes="
            + c.result(ReadYourWritesResults.WRITES)
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result(ReadYourWritesResults.VIOLATIONS)
            + " ("
            + c.result(ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH)
            + ")");
    Check.all(c, "lettuce read your writes", readYourWritesChecks(c, reads, redisGets));
  }

  /**
   * The same under Lettuce's {@code MicrometerTracing} (every command wrapped and observed), with
   * the plain SETs carrying an expiry as Spring's {@code @CachePut} sends them: a write seen by the
   * application before its reply was applied locally would show here as an older read.
   */
  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6})
  void aReturnedWriteIsSeenByEveryThreadUnderMicrometerTracing(String version) {
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.app(
                "lettuce-traced-ryw-" + version,
                Clients.lettuceWithMicrometerClasspath(version),
                "io.hotkey.it.app.LettuceScenarioApp")
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "5s")
            .args("--scenario", "traced-ryw", "--redis", redis.address(), "--millis", "3000")
            .run(snaps);
    ran(c, Jdk.JDK17);
    long reads = c.result(ReadYourWritesResults.READS);
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    System.out.println(
        "[it] lettuce traced ryw "
            + version
            + ": reads="
            + reads
            + " writes="
            + c.result(ReadYourWritesResults.WRITES)
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result(ReadYourWritesResults.VIOLATIONS)
            + " ("
            + c.result(ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH)
            + ")");
    Check.all(c, "lettuce traced read your writes", readYourWritesChecks(c, reads, redisGets));
  }

  /**
   * What the {@code ryw} scenario must show: no read older than a returned write, and a cache that
   * was used.
   */
  static Stream<Executable> readYourWritesChecks(ChildRun c, long reads, long redisGets) {
    return Stream.of(
        () ->
            assertEquals(
                0,
                c.result(ReadYourWritesResults.VIOLATIONS),
                () ->
                    "reads older than the last returned write: "
                        + c.result(ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH)
                        + " e.g. "
                        + c.result(ReadYourWritesResults.EXAMPLES)),
        () -> assertTrue(c.result(ReadYourWritesResults.WRITES) > 100, () -> "too few writes"),
        () -> assertTrue(reads > 1000, () -> "too few reads: " + reads),
        () ->
            assertEquals(
                String.valueOf(c.result(ReadYourWritesResults.LAST_RETURNED)),
                c.result(ReadYourWritesResults.FINAL),
                () -> "final read"),
        () ->
            assertTrue(
                redisGets < reads / 2,
                () ->
                    "the cache was not used: "
                        + redisGets
                        + " of "
                        + reads
                        + " reads reached Redis"));
  }

  /** No mismatch reported as {@code mismatches}; else the message is its {@code examples}. */
  static Executable noMismatches(
      ChildRun c, ResultName<Long> mismatches, ResultName<List<String>> examples) {
    return () -> assertEquals(0, c.result(mismatches), () -> String.valueOf(c.result(examples)));
  }

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_7})
  void anInternalFailureNeverReachesTheApplication(String version) {
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .hotkeyTestDefaults()
            .prop("hotkey.debug.fail-every", "3")
            .name("lettuce-failure-" + version)
            .args("--scenario", "serve", "--redis", redis.address(), "--n", "100")
            .run();
    ran(c);
    Check.all(
        c,
        "lettuce failure isolation",
        noMismatches(
            c, LettuceScenarioResults.SERVE_MISMATCHES, LettuceScenarioResults.SERVE_EXAMPLES),
        noMismatches(
            c, LettuceScenarioResults.JSON_MISMATCHES, LettuceScenarioResults.JSON_EXAMPLES),
        noMismatches(
            c, LettuceScenarioResults.FINAL_MISMATCHES, LettuceScenarioResults.FINAL_EXAMPLES),
        () -> assertTrue(c.stderrContains("internal error"), () -> "no internal error line"),
        () ->
            assertTrue(
                c.result(LettuceScenarioResults.SERVE_JMX.agentErrors()) > 0,
                () -> "no agent errors"));
  }

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6, Clients.LETTUCE_7})
  void clusterClientHotKeysAreServedLocally(String version) {
    cluster.reset();
    Snapshots snaps = new Snapshots(cluster::stats);
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .hotkeyTestDefaults()
            .name("lettuce-cluster-" + version)
            .args(
                "--scenario", "cluster", "--nodes", cluster.addresses(), "--n", Integer.toString(N))
            .run(snaps);
    ran(c);
    long reads = c.result(LettuceScenarioResults.CLUSTER_READS);
    long reached = snaps.calls(List.of("get", "hgetall"), "cluster", "cluster-done");
    System.out.println(
        "[it] lettuce cluster "
            + version
            + ": "
            + reached
            + " of "
            + reads
            + " reads reached Redis");
    Check.all(
        c,
        "lettuce cluster",
        () -> assertTrue(c.promoted("lt:str"), () -> "not promoted"),
        noMismatches(
            c, LettuceScenarioResults.CLUSTER_MISMATCHES, LettuceScenarioResults.CLUSTER_EXAMPLES),
        () ->
            assertTrue(
                reached < reads / 20, () -> reached + " of " + reads + " reads reached Redis"));
  }
}
