package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.FleetResults;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/**
 * A key no instance reads often enough to call it hot (100/s each, local threshold 200/s) but the
 * fleet together does (300/s, fleet threshold 200/s, a margin that holds when three JVMs starting
 * on a busy machine read below their rate): every instance serves it locally within a few windows
 * of 1 s after they all start reading, and none logs it as locally hot; a key only one instance
 * reads as often stays cold and keeps reaching Redis. No instance is told where the fleet's counts
 * go: each finds the one deployment its clients use, a standalone server or a 3-master Cluster,
 * whose every master then holds a shard of the counts.
 */
class FleetIT extends RedisTestBase {
  static final int INSTANCES = 3;
  static final long WINDOW_MS = 1_000;

  static final String COLD_KEY = "fleet:cold";

  @TempDir Path readyDir;

  private AgentJvm instance(int n, String client, String redisNodes, String key) {
    return AgentJvm.app(
            "fleet-" + n + "-" + client,
            client.equals("lettuce")
                ? Clients.lettuceClasspath(Clients.LETTUCE_6)
                : Clients.jedisClasspath(Clients.JEDIS_8),
            "io.hotkey.it.app.FleetApp")
        .hotkeyTestDefaults()
        .prop("hotkey.detect.fleet-threshold", "200")
        .prop("hotkey.cache.ttl", "30s")
        .timeout(Duration.ofSeconds(90))
        .args(
            "--client",
            client,
            "--redis",
            redisNodes,
            "--key",
            key,
            "--rate",
            "100",
            "--seconds",
            "8",
            "--ready-dir",
            readyDir.toString(),
            "--instances",
            Integer.toString(INSTANCES))
        .args(n == 0 ? new String[] {"--cold-key", COLD_KEY} : new String[0]);
  }

  @Test
  void aKeyHotOnlyAcrossTheFleetIsServedByEveryInstanceWithNoRedisNamed() throws Exception {
    String key = "fleet:product:7";
    try (Jedis jedis = redis.jedis()) {
      jedis.set(key, "v");
    }
    List<ChildRun> runs = runFleet(redis.address(), key, () -> {});
    for (ChildRun c : runs) {
      checkInstance(
          c,
          key,
          () ->
              assertTrue(
                  c.stderrContains("fleet counts go to the server " + redis.address()),
                  "no line naming the discovered server"));
    }
  }

  @Test
  void onAClusterEveryMasterHoldsAShardAndTheFleetFindsIt() throws Exception {
    try (RedisCluster cluster = RedisServers.startCluster(3)) {
      String key = "fleet:product:9";
      try (JedisCluster jedis = cluster.client()) {
        jedis.set(key, "v");
      }
      Set<String> mastersWithShards = new TreeSet<>();
      List<ChildRun> runs =
          runFleet(
              cluster.addresses(),
              key,
              () -> {
                for (RedisServer node : cluster.nodes()) {
                  try (Jedis jedis = node.jedis()) {
                    if (!jedis.keys("hotkey:{fleet:*}:*:reporters").isEmpty()) {
                      mastersWithShards.add(node.address());
                    }
                  }
                }
              });
      for (ChildRun c : runs) {
        checkInstance(
            c,
            key,
            () ->
                assertTrue(
                    c.stderrContains("fleet counts go to the Cluster of "),
                    "no line naming the discovered Cluster"));
      }
      assertEquals(3, mastersWithShards.size(), () -> "masters with a shard: " + mastersWithShards);
    }
  }

  /** Runs the instances (one on Lettuce, two on Jedis), {@code whileRunning} every 200 ms. */
  private List<ChildRun> runFleet(String redisNodes, String key, Runnable whileRunning)
      throws Exception {
    List<CompletableFuture<ChildRun>> running = new ArrayList<>();
    for (int n = 0; n < INSTANCES; n++) {
      AgentJvm jvm = instance(n, n == 0 ? "lettuce" : "jedis", redisNodes, key);
      running.add(CompletableFuture.supplyAsync(() -> jvm.run(name -> "")));
    }
    while (!running.stream().allMatch(CompletableFuture::isDone)) {
      whileRunning.run();
      Thread.sleep(200);
    }
    List<ChildRun> runs = new ArrayList<>();
    for (CompletableFuture<ChildRun> run : running) {
      runs.add(run.get());
    }
    return runs;
  }

  private static void checkInstance(ChildRun c, String key, Executable discovered) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(false, c.timedOut(), "timed out"));
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(discovered);
    checks.add(
        () ->
            assertTrue(
                c.stderrContains("fleet hot key promoted: key=\"" + key + "\""),
                "no fleet promotion logged"));
    checks.add(() -> assertFalse(c.promoted(key), "hot on one instance alone"));
    checks.add(
        () ->
            assertFalse(
                c.stderrContains("key=\"" + COLD_KEY + "\"") || c.promoted(COLD_KEY),
                "a key only one instance reads, below the fleet threshold, was promoted"));
    checks.add(
        () -> {
          long served = c.result(FleetResults.SERVED_AFTER_MS);
          // a window until every instance's rate is whole, up to one more until its report, up to
          // half of one until every instance reported that window, up to half of one more until
          // this instance reads it (only complete windows are read), then the tracking
          // registration
          assertTrue(
              served >= 0 && served <= 4 * WINDOW_MS + 1_000,
              () -> "served locally after " + served + " ms of reading (-1: never)");
        });
    checks.add(
        () ->
            assertTrue(
                c.result(FleetResults.HITS) > c.result(FleetResults.READS) / 3,
                () ->
                    c.result(FleetResults.HITS)
                        + " local answers of "
                        + c.result(FleetResults.READS)));
    Check.all(c, "fleet instance", checks.stream());
  }
}
