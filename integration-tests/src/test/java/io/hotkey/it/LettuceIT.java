package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
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
  static void startCluster() {
    cluster = RedisServers.startCluster(3);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
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
        () -> assertEquals("true", c.result("done"), () -> "not done"),
        () ->
            assertTrue(
                String.valueOf(c.result("java.version")).startsWith(jdk.major()),
                () -> "ran on java " + c.result("java.version") + ", not " + jdk));
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
    long reads = c.resultLong("serve.reads");
    long reached = snaps.calls(READS, "serve", "serve-done");
    long jsonReads = c.resultLong("json.reads");
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
            + c.result("json.decodes")
            + " values decoded for "
            + c.result("json.products")
            + " products returned; "
            + untouched
            + " GETs in MULTI/manual flush reached Redis; jmx hits="
            + c.result("serve.jmx.CacheHits"));
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
                c.resultLong("serve.mismatches"),
                () -> "values differ from Redis': " + c.result("serve.examples")),
        () ->
            assertEquals(
                0, c.resultLong("serve.sharedObjects"), () -> "a result object was shared"),
        () ->
            assertTrue(
                reached < reads / 20, () -> reached + " of " + reads + " reads reached Redis"),
        () ->
            assertEquals(
                "true",
                c.result("json.truthIsWhatWasWritten"),
                () -> "the JSON values Redis returns (in MULTI) are not the products written"),
        () ->
            assertEquals(
                0,
                c.resultLong("json.mismatches"),
                () ->
                    "JSON codec: decoded values differ from "
                        + "Redis': "
                        + c.result("json.examples")),
        () ->
            assertEquals(
                0,
                c.resultLong("json.sharedObjects"),
                () -> "JSON codec: a result object (map, list, product or its tags) was shared"),
        () ->
            assertTrue(
                c.resultLong("json.decodes") >= c.resultLong("json.products"),
                () ->
                    "JSON codec: "
                        + c.result("json.decodes")
                        + " decodes for "
                        + c.result("json.products")
                        + " products: results not built by the application's codec"),
        () ->
            assertTrue(
                jsonReached < jsonReads / 20,
                () -> "JSON codec: " + jsonReached + " of " + jsonReads + " reads reached Redis"),
        () ->
            assertEquals(
                c.resultLong("untouched.gets"),
                untouched,
                () -> "GETs inside MULTI / with manual flushing must all reach Redis"),
        () ->
            assertEquals(
                0,
                c.resultLong("final.mismatches"),
                () -> "a write was not seen: " + c.result("final.examples")),
        () -> assertEquals("0", c.result("serve.jmx.AgentErrors"), () -> "agent errors"));
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
    long reads = c.resultLong("ryw.reads");
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    System.out.println(
        "[it] lettuce ryw "
            + version
            + " on "
            + jdk
            + ": reads="
            + reads
            + " writes="
            + c.result("ryw.writes")
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result("ryw.violations")
            + " ("
            + c.result("ryw.violationsByWritePath")
            + ")");
    Check.all(c, "lettuce read your writes", readYourWritesChecks(c, reads, redisGets));
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
                c.resultLong("ryw.violations"),
                () ->
                    "reads older than the last returned write: "
                        + c.result("ryw.violationsByWritePath")
                        + " e.g. "
                        + c.result("ryw.examples")),
        () -> assertTrue(c.resultLong("ryw.writes") > 100, () -> "too few writes"),
        () -> assertTrue(reads > 1000, () -> "too few reads: " + reads),
        () -> assertEquals(c.result("ryw.lastReturned"), c.result("ryw.final"), () -> "final read"),
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
        () -> assertEquals(0, c.resultLong("serve.mismatches"), () -> c.result("serve.examples")),
        () -> assertEquals(0, c.resultLong("json.mismatches"), () -> c.result("json.examples")),
        () -> assertEquals(0, c.resultLong("final.mismatches"), () -> c.result("final.examples")),
        () -> assertTrue(c.stderrContains("internal error"), () -> "no internal error line"),
        () ->
            assertTrue(
                Long.parseLong(c.result("serve.jmx.AgentErrors")) > 0, () -> "no agent errors"));
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
    long reads = c.resultLong("cluster.reads");
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
        () ->
            assertEquals(0, c.resultLong("cluster.mismatches"), () -> c.result("cluster.examples")),
        () ->
            assertTrue(
                reached < reads / 20, () -> reached + " of " + reads + " reads reached Redis"));
  }
}
