package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.FleetResults;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A key no instance reads often enough to call it hot (100/s each, local threshold 200/s) but the
 * fleet together does (300/s, fleet threshold 250/s): every instance serves it locally within a few
 * windows of 1 s after they all start reading, and none logs it as locally hot; a key only one
 * instance reads as often stays cold and keeps reaching Redis.
 */
class FleetIT extends RedisTestBase {
  static final int INSTANCES = 3;
  static final long WINDOW_MS = 1_000;

  static final String COLD_KEY = "fleet:cold";

  @TempDir Path readyDir;

  private AgentJvm instance(int n, String client, String key) {
    return AgentJvm.app(
            "fleet-" + n + "-" + client,
            client.equals("lettuce")
                ? Clients.lettuceClasspath(Clients.LETTUCE_6)
                : Clients.jedisClasspath(Clients.JEDIS_8),
            "io.hotkey.it.app.FleetApp")
        .hotkeyTestDefaults()
        .prop("hotkey.detect.fleet-threshold", "250")
        .prop("hotkey.redis.uri", "redis://" + redis.address())
        .prop("hotkey.cache.ttl", "30s")
        .timeout(Duration.ofSeconds(90))
        .args(
            "--client",
            client,
            "--redis",
            redis.address(),
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
  void aKeyHotOnlyAcrossTheFleetIsServedByEveryInstance() throws Exception {
    String key = "fleet:product:7";
    try (Jedis jedis = redis.jedis()) {
      jedis.set(key, "v");
    }
    List<CompletableFuture<ChildRun>> runs = new ArrayList<>();
    for (int n = 0; n < INSTANCES; n++) {
      AgentJvm jvm = instance(n, n == 0 ? "lettuce" : "jedis", key);
      runs.add(CompletableFuture.supplyAsync(() -> jvm.run(name -> "")));
    }
    for (CompletableFuture<ChildRun> run : runs) {
      ChildRun c = run.get();
      List<Executable> checks = new ArrayList<>();
      checks.add(() -> assertEquals(false, c.timedOut(), "timed out"));
      checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
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
            // up to a window until the first whole one, a window to measure, up to half of one to
            // the next read of the sum, then the tracking registration
            assertTrue(
                served >= 0 && served <= 3 * WINDOW_MS + 1_000,
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
}
