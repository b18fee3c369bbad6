package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.testing.RedisClusterProcesses;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a real 3-master Cluster the fleet's counts are sharded one shard per master: every master
 * holds a shard's aggregate, each key's count lands in the shard its hash picks, and a key's sum
 * over instances is read back from its own shard.
 */
class FleetShardsClusterTest {
  private static RedisClusterProcesses cluster;
  private static RespClient client;

  @BeforeAll
  static void start() throws Exception {
    cluster = RedisClusterProcesses.start(3);
    client = new RespClient(cluster.endpoint(0), 2000, 2000, 1, 0);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    cluster.close();
  }

  @Test
  void everyMasterCarriesOneShardAndEachKeyIsSummedInItsOwn() throws Exception {
    FleetShards shards = FleetShards.of(client, "sharded:");
    assertEquals(3, shards.count(), "one shard per master");
    Set<String> masters = new HashSet<>();
    for (int s = 0; s < shards.count(); s++) {
      masters.add(shards.master(s));
    }
    assertEquals(3, masters.size(), "shards on distinct masters: " + masters);

    // 60 keys, each reported by two instances at 60 of a threshold of 100 per window, read back
    // once their window is complete
    FleetAggregate aggregate = new FleetAggregate(Duration.ofSeconds(1), 100, 1000);
    List<List<KeyCount>> byShard = new ArrayList<>();
    for (int s = 0; s < shards.count(); s++) {
      byShard.add(new ArrayList<>());
    }
    for (int k = 0; k < 60; k++) {
      byte[] key = ("item:" + k).getBytes(StandardCharsets.UTF_8);
      byShard.get(shards.of(key)).add(new KeyCount(key, 60));
    }
    for (int s = 0; s < shards.count(); s++) {
      assertTrue(byShard.get(s).size() > 5, "shard " + s + " got " + byShard.get(s).size());
    }
    long reported = reportInOneWindow(aggregate, shards, byShard);
    int hot = 0;
    for (int s = 0; s < shards.count(); s++) {
      FleetAggregate.Exchange exchange;
      do {
        Thread.sleep(50);
        exchange = aggregate.exchange(client, shards.base(s), Long.MAX_VALUE, List.of());
      } while (exchange.window < reported + 2);
      hot += exchange.hot.size();
      for (KeyCount key : exchange.hot) {
        assertEquals(s, shards.of(key.key()), "read back from its own shard");
      }
    }
    assertEquals(60, hot, "every key at 120 of 100");

    for (int node = 0; node < cluster.size(); node++) {
      Object keys = cluster.call(node, "KEYS", "sharded:*");
      assertTrue(
          ((List<?>) keys).size() >= 3,
          "node " + node + ": its shard's aggregate, reporters and hot list: " + keys);
    }
  }

  /**
   * Both instances' reports, in one window of Redis's clock: a report that straddles a window's end
   * splits the sums, so the round is made again (each key then sums in the later window alone).
   */
  private static long reportInOneWindow(
      FleetAggregate aggregate, FleetShards shards, List<List<KeyCount>> byShard) throws Exception {
    for (int attempt = 0; attempt < 5; attempt++) {
      Set<Long> windows = new HashSet<>();
      for (int instance = 0; instance < 2; instance++) {
        for (int s = 0; s < shards.count(); s++) {
          windows.add(aggregate.exchange(client, shards.base(s), -1, byShard.get(s)).reported);
        }
      }
      if (windows.size() == 1) {
        return windows.iterator().next();
      }
      // wait for the next window, whose sums the retried reports start afresh
      Thread.sleep(1000);
    }
    throw new AssertionError("no round of reports fell within one window in five tries");
  }
}
