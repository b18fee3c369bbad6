package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.LettuceScenarioResults;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cluster scenario of {@link LettuceScenarioApp}: a {@code RedisClusterClient}, sync, async and
 * reactive reads of hot keys, and writes that invalidate them.
 */
final class LettuceClusterScenario {
  private LettuceClusterScenario() {}

  static void run(String nodes, int n) throws Exception {
    List<RedisURI> uris = new ArrayList<>();
    for (String node : nodes.split(",")) {
      uris.add(LettuceScenarioApp.uri(node));
    }
    RedisClusterClient client = RedisClusterClient.create(uris);
    try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      var s = conn.sync();
      var as = conn.async();
      var rx = conn.reactive();
      s.set(LettuceScenarioApp.STR, "cluster-value");
      s.hset(LettuceScenarioApp.HASH, LettuceScenarioApp.HASH_VALUE);
      Child.warmUp(
          LettuceScenarioResults.CLUSTER_WARMUP,
          List.of(LettuceScenarioApp.STR, LettuceScenarioApp.HASH),
          () -> {
            s.get(LettuceScenarioApp.STR);
            s.hgetall(LettuceScenarioApp.HASH);
          },
          8000,
          3000);
      for (int i = 0; i < 50; i++) {
        s.get(LettuceScenarioApp.STR);
        s.hgetall(LettuceScenarioApp.HASH);
      }
      LettuceScenarioApp.Mismatches m = new LettuceScenarioApp.Mismatches();
      sync("cluster");
      for (int i = 0; i < n; i++) {
        m.check("sync get", "cluster-value", s.get(LettuceScenarioApp.STR));
        m.check(
            "async get", "cluster-value", as.get(LettuceScenarioApp.STR).get(5, TimeUnit.SECONDS));
        m.check("reactive get", "cluster-value", rx.get(LettuceScenarioApp.STR).block());
        m.check("sync hgetall", LettuceScenarioApp.HASH_VALUE, s.hgetall(LettuceScenarioApp.HASH));
      }
      sync("cluster-done");
      result(LettuceScenarioResults.CLUSTER_READS, 4L * n);
      s.set(LettuceScenarioApp.STR, "cluster-v2");
      m.check("after set", "cluster-v2", s.get(LettuceScenarioApp.STR));
      as.hset(LettuceScenarioApp.HASH, "f1", "uno").get(5, TimeUnit.SECONDS);
      m.check(
          "after hset",
          "uno",
          rx.hgetall(LettuceScenarioApp.HASH).collectList().block().stream()
              .filter(kv -> kv.getKey().equals("f1"))
              .findFirst()
              .get()
              .getValue());
      result(LettuceScenarioResults.CLUSTER_MISMATCHES, m.count.get());
      result(LettuceScenarioResults.CLUSTER_EXAMPLES, m.examples);
      Child.reportJmx(LettuceScenarioResults.CLUSTER_JMX);
    } finally {
      client.shutdown();
    }
  }
}
