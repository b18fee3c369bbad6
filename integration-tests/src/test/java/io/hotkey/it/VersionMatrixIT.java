package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.VersionMatrix.Client;
import io.hotkey.it.app.results.JedisSmokeResults;
import io.hotkey.it.app.results.JmxResults;
import io.hotkey.it.app.results.LettuceScenarioResults;
import io.hotkey.it.app.results.ResultName;
import io.hotkey.it.app.results.RunResults;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * The smoke scenario against the oldest and newest release of every minor line each client module
 * claims ({@link VersionMatrix}), one child JVM each: hot keys are served, a write is read back
 * before it returns, another process's write is invalidated by tracking, and a pipeline is never
 * served. A release the module's gate does not pick, or whose hooks do not all weave, fails here.
 *
 * <p>Two releases run at a time, each on a Redis of its own for the run (what reached Redis is read
 * from its {@code INFO commandstats}): a child spends much of its short life waiting on the test's
 * sync points, so two lanes nearly halve the matrix's time on two cores.
 */
@AfterTheSideLane
class VersionMatrixIT {
  /** Jedis rounds of 4 reads (GET, binary GET, HGETALL, LRANGE) of the same keys. */
  static final int JEDIS_ROUNDS = 1000;

  /** Lettuce rounds of 8 reads (4 GETs, 1 HGETALL, 3 LRANGEs) of the same keys. */
  static final int LETTUCE_ROUNDS = 1500;

  static final String JEDIS_HOT_KEY = "j3:str";
  static final String LETTUCE_HOT_LIST = "lt:list";

  @RegisterExtension static final RedisLanes lanes = new RedisLanes();

  /**
   * The lines to run, {@code -Dhotkey.it.matrix="lettuce 6.7,jedis 4.0"} for a few (every line
   * without it).
   */
  private static final Optional<List<String>> ONLY =
      Optional.ofNullable(System.getProperty("hotkey.it.matrix"))
          .map(only -> List.of(only.split(",\\s*")));

  /**
   * Every release of the lines to run on JDK 17, and each module's oldest and newest release on JDK
   * 25 as well.
   */
  static Stream<Arguments> releases(Client client) {
    List<VersionMatrix.Line> lines =
        VersionMatrix.LINES.stream()
            .filter(l -> l.client() == client)
            .filter(
                l -> ONLY.map(only -> only.contains(client.folder + " " + l.line())).orElse(true))
            .toList();
    Stream<Arguments> onJdk17 =
        lines.stream()
            .flatMap(l -> l.releases().stream().map(r -> Arguments.of(l.module(), r, Jdk.JDK17)));
    Stream<Arguments> onJdk25 =
        lines.stream()
            .map(VersionMatrix.Line::module)
            .distinct()
            .flatMap(
                module -> {
                  List<String> releases =
                      lines.stream()
                          .filter(l -> l.module().equals(module))
                          .flatMap(l -> l.releases().stream())
                          .toList();
                  return Stream.of(releases.get(0), releases.get(releases.size() - 1))
                      .distinct()
                      .map(r -> Arguments.of(module, r, Jdk.JDK25));
                });
    return Stream.concat(onJdk17, onJdk25);
  }

  static Stream<Arguments> jedisReleases() {
    return releases(Client.JEDIS);
  }

  static Stream<Arguments> lettuceReleases() {
    return releases(Client.LETTUCE);
  }

  /**
   * Hot keys read through {@code Jedis} (String and binary API, two pooled connections), and {@code
   * ShardedJedis} on Jedis 3, are served, each answer a fresh object equal to Redis'; a write is
   * read back at once on another connection; a pipeline's and a transaction's GETs of the hot key
   * all reach Redis; a write by the test's process (another client) is read back through tracking.
   */
  @ParameterizedTest(name = "{0}: jedis {1} on {2}")
  @Execution(ExecutionMode.CONCURRENT)
  @MethodSource("jedisReleases")
  void jedisSmokeScenarioIsServedAndNeverStale(String module, String version, Jdk jdk)
      throws InterruptedException {
    lanes.onFreeServer(redis -> jedisSmokeScenario(redis, module, version, jdk));
  }

  private static void jedisSmokeScenario(
      RedisServer redis, String module, String version, Jdk jdk) {
    Snapshots snaps =
        new Snapshots(redis::stats)
            .on(
                "foreign",
                sync -> foreignWrite(redis, other -> other.set(JEDIS_HOT_KEY, "foreign")));
    ChildRun c =
        AgentJvm.jedisApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("matrix-jedis-" + version)
            .args(
                "--scenario",
                "smoke",
                "--redis",
                redis.address(),
                "--n",
                Integer.toString(JEDIS_ROUNDS))
            .run(snaps);
    long reads = c.result(JedisSmokeResults.READS);
    long reached = snaps.calls(List.of("get", "hgetall", "lrange"), "smoke", "smoke-done");
    long shardedGets = c.result(JedisSmokeResults.SHARDED_GETS);
    boolean jedis3 = module.equals(VersionMatrix.JEDIS_3);
    long shardedReached = jedis3 ? snaps.calls("get", "sharded", "sharded-done") : 0;
    long pipelined = c.result(JedisSmokeResults.PIPELINED_GETS);
    long pipelinedReached = snaps.calls("get", "pipeline", "pipeline-done");
    long inTransaction = c.result(JedisSmokeResults.TRANSACTION_GETS);
    long inTransactionReached = snaps.calls("get", "multi", "multi-done");
    long served = c.result(JedisSmokeResults.SERVED_GETS);
    long servedReached = snaps.calls("get", "served", "foreign");
    long foreignMillis = c.result(JedisSmokeResults.FOREIGN_WRITE_MILLIS);
    System.out.printf(
        "[it] %s jedis %s on %s: %d of %d hot reads reached Redis, %d of %d through ShardedJedis, %d of"
            + " %d before the foreign write; %d of %d pipelined, %d of %d in MULTI; another"
            + " process's write read back after %d ms; jmx CacheHits=%d%n",
        module,
        version,
        jdk,
        reached,
        reads,
        shardedReached,
        shardedGets,
        servedReached,
        served,
        pipelinedReached,
        pipelined,
        inTransactionReached,
        inTransaction,
        foreignMillis,
        c.result(JedisSmokeResults.JMX.cacheHits()));
    Check.all(
        c,
        module + ": jedis " + version + " on " + jdk + " with the agent",
        Stream.concat(
            ranCleanly(
                c,
                JedisSmokeResults.JMX,
                JedisSmokeResults.MISMATCHES,
                c.result(JedisSmokeResults.EXAMPLES)),
            Stream.of(
                () ->
                    assertEquals(
                        jedis3,
                        c.stderrContains("[hotkey] instrumented redis.clients.jedis.BinaryJedis"),
                        () -> "BinaryJedis woven by the jedis-3 module, and only there"),
                () -> assertTrue(c.promoted(JEDIS_HOT_KEY), () -> JEDIS_HOT_KEY + " not promoted"),
                () ->
                    assertTrue(
                        c.result(JedisSmokeResults.JMX.commands()) >= reads,
                        () -> "commands not counted"),
                () ->
                    assertTrue(
                        reached < reads / 2,
                        () -> reached + " of " + reads + " hot reads reached Redis"),
                () ->
                    assertEquals(
                        jedis3,
                        shardedGets > 0,
                        () -> "ShardedJedis read on Jedis 3, and only there"),
                () ->
                    assertTrue(
                        shardedReached <= shardedGets / 2,
                        () -> shardedReached + " of " + shardedGets + " ShardedJedis GETs reached"),
                () ->
                    assertTrue(
                        servedReached < served / 2,
                        () -> servedReached + " of " + served + " GETs reached Redis before"),
                () ->
                    assertEquals(
                        pipelined, pipelinedReached, () -> "a pipelined GET was answered locally"),
                () ->
                    assertEquals(
                        inTransaction,
                        inTransactionReached,
                        () -> "a GET inside MULTI was answered locally"),
                () ->
                    assertTrue(
                        foreignMillis >= 0,
                        () -> "another process's write was not read back within 10 s"))));
  }

  /**
   * The {@code compat} scenario (only API that Lettuce 5.0 shares with 6 and 7): hot keys read
   * through sync, async and reactive are served; a write by every API is read back at once; a hot
   * list written by this (another) process is invalidated by tracking, which on Lettuce 5 (RESP2
   * only) runs on the agent's own connection; pipelined reads (manual flushing) all reach Redis.
   */
  @ParameterizedTest(name = "{0}: lettuce {1} on {2}")
  @Execution(ExecutionMode.CONCURRENT)
  @MethodSource("lettuceReleases")
  void lettuceSmokeScenarioIsServedAndNeverStale(String module, String version, Jdk jdk)
      throws InterruptedException {
    lanes.onFreeServer(redis -> lettuceSmokeScenario(redis, module, version, jdk));
  }

  private static void lettuceSmokeScenario(
      RedisServer redis, String module, String version, Jdk jdk) {
    Snapshots snaps =
        new Snapshots(redis::stats)
            .on(
                "compat-foreign",
                sync -> foreignWrite(redis, other -> other.rpush(LETTUCE_HOT_LIST, "foreign")));
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("matrix-lettuce-" + version)
            .args(
                "--scenario",
                "compat",
                "--redis",
                redis.address(),
                "--n",
                Integer.toString(LETTUCE_ROUNDS))
            .run(snaps);
    long reads = c.result(LettuceScenarioResults.COMPAT_READS);
    long reached = snaps.calls(LettuceIT.READS, "compat", "compat-done");
    long served = c.result(LettuceScenarioResults.COMPAT_SERVED_READS);
    long servedReached = snaps.calls("lrange", "compat-served", "compat-foreign");
    long pipelined = c.result(LettuceScenarioResults.COMPAT_PIPELINED_READS);
    long pipelinedReached = snaps.calls("lrange", "compat-pipeline", "compat-pipeline-done");
    long foreignMillis = c.result(LettuceScenarioResults.COMPAT_FOREIGN_WRITE_MILLIS);
    boolean lettuce6 = module.equals(VersionMatrix.LETTUCE_6);
    System.out.printf(
        "[it] %s lettuce %s on %s: %d of %d hot reads reached Redis, %d of %d reads of %s, %d of %d"
            + " pipelined; another process's write read back after %d ms; jmx CacheHits=%d%n",
        module,
        version,
        jdk,
        reached,
        reads,
        servedReached,
        served,
        LETTUCE_HOT_LIST,
        pipelinedReached,
        pipelined,
        foreignMillis,
        c.result(LettuceScenarioResults.COMPAT_JMX.cacheHits()));
    Check.all(
        c,
        module + ": lettuce " + version + " on " + jdk + " with the agent",
        Stream.concat(
            ranCleanly(
                c,
                LettuceScenarioResults.COMPAT_JMX,
                LettuceScenarioResults.COMPAT_MISMATCHES,
                c.result(LettuceScenarioResults.COMPAT_EXAMPLES)),
            Stream.of(
                () ->
                    assertTrue(
                        c.stderrContains(
                            "[hotkey] instrumented io.lettuce.core.RedisChannelHandler"),
                        () -> "RedisChannelHandler not instrumented"),
                () ->
                    assertEquals(
                        lettuce6,
                        c.stderrContains(
                            "[hotkey] instrumented io.lettuce.core.protocol.CommandHandler"),
                        () -> "CommandHandler woven by the lettuce-6+ module, and only there"),
                () ->
                    assertEquals(
                        0,
                        c.result(LettuceScenarioResults.COMPAT_SHARED_OBJECTS),
                        () -> "a result object was shared"),
                () ->
                    assertTrue(
                        c.promoted("lt:str") && c.promoted(LETTUCE_HOT_LIST),
                        () -> "keys not promoted"),
                () ->
                    assertTrue(
                        c.result(LettuceScenarioResults.COMPAT_JMX.commands()) >= reads,
                        () -> "commands not counted"),
                () ->
                    assertTrue(
                        reached < reads / 2,
                        () -> reached + " of " + reads + " hot reads reached Redis"),
                () ->
                    assertTrue(
                        servedReached < served / 2,
                        () -> servedReached + " of " + served + " reads of the hot list reached"),
                () ->
                    assertEquals(
                        pipelined, pipelinedReached, () -> "a pipelined read was answered locally"),
                () ->
                    assertTrue(
                        foreignMillis >= 0,
                        () -> "another process's write was not read back within 10 s"))));
  }

  /**
   * What every smoke run must show: it ran to its end, every hook wove, the agent had no error, and
   * every answer was Redis'.
   */
  private static Stream<Executable> ranCleanly(
      ChildRun c, JmxResults jmx, ResultName<Long> mismatches, List<String> examples) {
    return Stream.of(
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () -> assertFalse(c.stderrContains("internal error"), () -> "an internal error line"),
        () -> assertFalse(c.stderrContains("stops serving"), () -> "a hook left unwoven"),
        () -> assertEquals(0, c.result(jmx.agentErrors()), () -> "agent errors"),
        () ->
            assertEquals(
                0,
                c.result(mismatches),
                () -> "values differ from Redis' or a write was not seen: " + examples));
  }

  /** Another client's write, made when the child reaches its foreign-write sync point. */
  private static String foreignWrite(RedisServer redis, Consumer<Jedis> write) {
    try (Jedis other = redis.jedis()) {
      write.accept(other);
    }
    return "foreign";
  }
}
