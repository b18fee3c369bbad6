package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.JedisClusterResults;
import io.hotkey.it.app.results.RunResults;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.JedisCluster;

/**
 * (h) JedisCluster against a real 3-master Redis Cluster (local redis-server processes, cluster
 * mode, slots assigned and nodes met by the test): hot keys detected, served locally, values
 * correct, writes invalidate.
 */
class ClusterIT {
  static final int N = 2000;
  static RedisCluster cluster;

  @BeforeAll
  static void useTheSharedCluster() {
    cluster = RedisServers.sharedCluster();
  }

  @BeforeEach
  void reset() {
    cluster.reset();
  }

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {Clients.JEDIS_3, Clients.JEDIS_4, Clients.JEDIS_6, Clients.JEDIS_8})
  void hotKeysOfAClusterAreServedLocally(String version) {
    String key = "cl:hot";
    String hash = "cl:hash";
    try (JedisCluster c = cluster.client()) {
      c.set(key, "cluster-value");
      c.hset(hash, "f", "field-value");
    }
    Snapshots snaps = new Snapshots(cluster::stats);
    ChildRun c =
        AgentJvm.clusterApp(version)
            .hotkeyTestDefaults()
            .name("cluster-" + version)
            .args(
                "--nodes",
                cluster.addresses(),
                "--key",
                key,
                "--hash",
                hash,
                "--n",
                Integer.toString(N))
            .run(snaps);
    String[] after = new String[2];
    try (JedisCluster j = cluster.client()) {
      after[0] = j.get(key);
      after[1] = j.hget(hash, "f");
    }
    Check.all(
        c,
        "cluster",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () -> assertTrue(c.promoted(key), () -> key + " not promoted"),
        () -> assertTrue(c.promoted(hash), () -> hash + " not promoted"),
        () -> assertEquals("cluster-value", c.result(JedisClusterResults.INITIAL), () -> "initial"),
        () -> assertEquals(0, c.result(JedisClusterResults.MISMATCHES), () -> "wrong values"),
        () -> {
          long n = c.result(JedisClusterResults.GETS);
          long reached = snaps.calls("get", "reads", "reads-done");
          assertTrue(
              n > 0 && reached < n * 0.05,
              () -> reached + " of " + n + " GETs of a hot key reached the cluster");
        },
        () -> {
          long n = c.result(JedisClusterResults.HGETS);
          long reached = snaps.calls("hget", "reads", "reads-done");
          assertTrue(
              n > 0 && reached < n * 0.05,
              () -> reached + " of " + n + " HGETs of a hot key reached the cluster");
        },
        () ->
            assertEquals(
                "cluster-written",
                c.result(JedisClusterResults.WRITE_READ_BACK),
                () -> "read after write"),
        () ->
            assertEquals(
                "field-written",
                c.result(JedisClusterResults.HSET_READ_BACK),
                () -> "read after hset"),
        () ->
            assertEquals(
                version.equals(Clients.JEDIS_3) ? JedisClusterResults.NO_CLUSTER_PIPELINE : "ok",
                c.result(JedisClusterResults.AFTER_ABANDONED_PIPELINE),
                "write after an abandoned cluster pipeline"),
        () ->
            assertEquals(
                "ok", c.result(JedisClusterResults.ASK_REDIRECTED), "write redirected with ASK"),
        () ->
            assertEquals(
                "ok",
                c.result(JedisClusterResults.MOVED_REDIRECTED),
                "write redirected with MOVED"),
        () -> {
          // each master a hot key was read from is tracked, under the address the client used
          List<String> servers = c.result(JedisClusterResults.TRACKING_SERVERS);
          assertTrue(
              servers.stream().anyMatch(server -> server.contains(" tracking"))
                  && servers.stream().noneMatch(server -> server.contains("fallback")),
              () -> "tracked servers: " + servers);
          for (String server : servers) {
            String address = server.substring(0, server.indexOf(' '));
            assertTrue(
                cluster.addresses().contains(address),
                () -> address + " is not a node of " + cluster.addresses());
          }
        },
        () -> assertEquals("after-migration", after[0]),
        () -> assertEquals("field-written", after[1]));
  }
}
