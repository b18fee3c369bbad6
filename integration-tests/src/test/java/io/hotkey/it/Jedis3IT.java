package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.Jedis3SmokeResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * The Jedis 3 module: its version matrix, the smoke scenario against the oldest and newest release
 * of every 3.x minor line, one child JVM each against a shared Redis, and Jedis 3.10's {@code
 * basic} scenario on every JDK.
 */
class Jedis3IT extends RedisTestBase {
  /** Rounds of 4 reads (GET, binary GET, HGETALL, LRANGE) of the same keys. */
  static final int N = 1000;

  static final String OLDEST = Clients.JEDIS_3_MATRIX.get(0);

  static List<String> versions() {
    return Clients.JEDIS_3_MATRIX;
  }

  /**
   * Hot keys read through {@code Jedis} (String and binary API, two pooled connections) and {@code
   * ShardedJedis} are served, each answer a fresh object equal to Redis'; a write is read back at
   * once on another connection; a pipeline's and a transaction's GETs of the hot key all reach
   * Redis; a write by the test's process (another client) is read back through tracking.
   */
  @ParameterizedTest(name = "jedis {0}")
  @MethodSource("versions")
  void smokeScenarioIsServedAndNeverStale(String version) {
    Snapshots snaps = new Snapshots(redis::stats).on("foreign", sync -> writeForeign());
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .name("jedis3-" + version)
            .args("--scenario", "smoke3", "--redis", redis.address(), "--n", Integer.toString(N))
            .run(snaps);
    long reads = c.result(Jedis3SmokeResults.READS);
    long reached = snaps.calls(List.of("get", "hgetall", "lrange"), "smoke", "smoke-done");
    long shardedGets = c.result(Jedis3SmokeResults.SHARDED_GETS);
    long shardedReached = snaps.calls("get", "sharded", "sharded-done");
    long pipelined = c.result(Jedis3SmokeResults.PIPELINED_GETS);
    long pipelinedReached = snaps.calls("get", "pipeline", "pipeline-done");
    long inTransaction = c.result(Jedis3SmokeResults.TRANSACTION_GETS);
    long inTransactionReached = snaps.calls("get", "multi", "multi-done");
    long served = c.result(Jedis3SmokeResults.SERVED_GETS);
    long servedReached = snaps.calls("get", "served", "foreign");
    long foreignMillis = c.result(Jedis3SmokeResults.FOREIGN_WRITE_MILLIS);
    System.out.println(
        "[it] jedis "
            + version
            + ": "
            + reached
            + " of "
            + reads
            + " hot reads reached Redis, "
            + shardedReached
            + " of "
            + shardedGets
            + " through ShardedJedis, "
            + servedReached
            + " of "
            + served
            + " before the foreign write; "
            + pipelinedReached
            + " of "
            + pipelined
            + " pipelined, "
            + inTransactionReached
            + " of "
            + inTransaction
            + " in MULTI; another process's write read back after "
            + foreignMillis
            + " ms; jmx CacheHits="
            + c.result(Jedis3SmokeResults.JMX.cacheHits()));
    Check.all(
        c,
        "jedis " + version + " with the agent",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () -> assertFalse(c.stderrContains("internal error"), () -> "an internal error line"),
        () -> assertFalse(c.stderrContains("stops serving"), () -> "a hook left unwoven"),
        () -> assertEquals(0, c.result(Jedis3SmokeResults.JMX.agentErrors()), () -> "agent errors"),
        () ->
            assertEquals(
                0,
                c.result(Jedis3SmokeResults.MISMATCHES),
                () ->
                    "values differ from Redis' or a write was not seen: "
                        + c.result(Jedis3SmokeResults.EXAMPLES)),
        () -> assertTrue(c.promoted("j3:str"), () -> "j3:str not promoted"),
        () ->
            assertTrue(
                c.result(Jedis3SmokeResults.JMX.commands()) >= reads, () -> "commands not counted"),
        () ->
            assertTrue(
                reached < reads / 2, () -> reached + " of " + reads + " hot reads reached Redis"),
        () ->
            assertTrue(
                shardedReached < shardedGets / 2,
                () -> shardedReached + " of " + shardedGets + " ShardedJedis GETs reached Redis"),
        () ->
            assertTrue(
                servedReached < served / 2,
                () -> servedReached + " of " + served + " GETs reached Redis before the write"),
        () ->
            assertEquals(pipelined, pipelinedReached, () -> "a pipelined GET was answered locally"),
        () ->
            assertEquals(
                inTransaction,
                inTransactionReached,
                () -> "a GET inside MULTI was answered locally"),
        () ->
            assertTrue(
                foreignMillis >= 0, () -> "another process's write was not read back within 10 s"));
  }

  /**
   * One class of the module left unwoven ({@code hotkey.debug.fail-weaving}, as another agent could
   * make it fail): the module says so and stops serving, binary reads through the woven {@code
   * BinaryJedis} included, while every read still gets Redis' answer and writes still invalidate.
   */
  @Test
  void aJedisClassLeftUnwovenCountsButNeverServes() {
    String unwoven = "redis.clients.jedis.Jedis";
    Snapshots snaps = new Snapshots(redis::stats).on("foreign", sync -> writeForeign());
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_3)
            .hotkeyTestDefaults()
            .prop("hotkey.debug.fail-weaving", unwoven)
            .name("jedis3-unwoven")
            .args("--scenario", "smoke3", "--redis", redis.address(), "--n", "200")
            .run(snaps);
    long reads = c.result(Jedis3SmokeResults.READS);
    long reached = snaps.calls(List.of("get", "hgetall", "lrange"), "smoke", "smoke-done");
    Check.all(
        c,
        "jedis 3 with " + unwoven + " unwoven",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertTrue(
                c.stderrContains("jedis-3 stops serving in class loader ")
                    && c.stderrContains(unwoven + " is not instrumented: "),
                () -> "no log line naming the module and the class"),
        () ->
            assertEquals(
                0,
                c.result(Jedis3SmokeResults.MISMATCHES),
                () -> "wrong values: " + c.result(Jedis3SmokeResults.EXAMPLES)),
        () -> assertTrue(c.promoted("j3:str"), () -> "j3:str not counted up to hot"),
        () -> assertEquals(0, c.result(Jedis3SmokeResults.JMX.cacheHits()), () -> "cache hits"),
        () -> assertEquals(reads, reached, () -> reached + " of " + reads + " reads reached Redis"),
        () ->
            assertTrue(
                c.result(Jedis3SmokeResults.FOREIGN_WRITE_MILLIS) >= 0,
                () -> "another process's write was not read back"));
  }

  /**
   * The agent attached to a running Jedis 3.0 application, whose Jedis classes are loaded and in
   * use: they are retransformed, the hot key is then served, and no read is wrong.
   */
  @Test
  void attachingToARunningApplicationServesItsHotKey() {
    Map<String, Long> getCalls = new ConcurrentHashMap<>();
    List<String> attachOutput = new ArrayList<>();
    ChildRun c =
        AgentJvm.jedisApp(OLDEST)
            .withoutAgent()
            .prop("hotkey.detect.threshold", "200")
            .name("jedis3-attach")
            .args("--scenario", "attach", "--redis", redis.address(), "--millis", "2500")
            .run(
                name -> {
                  if (name.startsWith("attach ")) {
                    attachOutput.addAll(
                        AttachIT.attach(Jdk.JDK17, name.substring("attach ".length())));
                  }
                  getCalls.put(name.split(" ")[0], redis.calls("get"));
                  return "";
                });
    Check.all(
        c,
        "attach to jedis " + OLDEST,
        () -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput),
        () ->
            assertTrue(
                attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                () -> "attach command output " + attachOutput),
        () ->
            assertTrue(
                c.stderrContains("(already loaded, retransformed)"),
                () -> "Jedis' loaded classes were not retransformed"),
        () -> assertTrue(c.promoted("attach:key"), () -> "never promoted"),
        () -> assertEquals(0, c.result(AttachResults.WRONG), () -> "wrong values read"),
        () -> {
          long reached = getCalls.get("served") - getCalls.get("measured");
          assertTrue(reached < 50, () -> reached + " of 1000 GETs of the hot key reached Redis");
        });
  }

  private static String writeForeign() {
    try (Jedis other = redis.jedis()) {
      other.set("j3:str", "foreign");
    }
    return "foreign";
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Jdk.class)
  void jedis3RunsUnchangedAndIsCounted(Jdk jdk) {
    CommandStats before = redis.stats();
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_3)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("jedis3")
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "1500")
            .run();
    CommandStats used = redis.stats().minus(before);
    Check.all(
        c,
        "jedis 3",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
        () -> assertTrue(c.agentActiveLine(), () -> "no active line"),
        () -> assertTrue(c.promoted("basic:str"), () -> "basic:str not promoted"),
        () ->
            assertTrue(
                c.result(BasicResults.JMX.commands()) >= c.result(BasicResults.GETS),
                () ->
                    "JMX Commands="
                        + c.result(BasicResults.JMX.commands())
                        + " < GETs issued "
                        + c.result(BasicResults.GETS)),
        () -> assertTrue(used.calls("set") >= 4, () -> "writes reach Redis: " + used),
        () ->
            assertTrue(
                used.calls("get") <= c.result(BasicResults.GETS),
                () -> "more GETs reached Redis than the app sent; commandstats " + used));
  }
}
