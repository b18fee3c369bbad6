package io.hotkey.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ExpiryIT} on a 3-master Redis Cluster: each entry's TTL is asked of the node its key lives
 * on, on the agent's own connection to that node. Mostly waits for TTLs, on a Cluster of its own,
 * beside the other classes.
 */
@SideLane
class ExpiryClusterIT {
  static RedisCluster cluster;

  @BeforeAll
  static void startTheCluster() {
    cluster = RedisServers.startCluster(3);
  }

  @AfterAll
  static void stopTheCluster() {
    cluster.close();
  }

  @BeforeEach
  void reset() {
    cluster.reset();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jedis", "lettuce"})
  void noReadGetsTheValueAfterItsTtl(String client) {
    // the hash tag keeps RESTORE's source key in the key's slot
    ChildRun c =
        ExpiryIT.run(client, "tracking", cluster.addresses(), "{expiry}:" + client, ExpiryIT.CASES);
    ExpiryIT.checkNoneLate(c, "expiry " + client + " cluster", ExpiryIT.CASES);
  }
}
