package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.JedisClusterResults;
import io.hotkey.it.app.results.RunResults;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * JedisCluster against a real 3-master Redis Cluster: hot key detected, served locally, correct,
 * writes invalidate. Usage: {@code --nodes h:p,h:p,h:p --key k --n 2000}.
 */
public final class ClusterScenarioApp {
  private ClusterScenarioApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    Set<HostAndPort> nodes = new HashSet<>();
    for (String hp : a.get("nodes").split(",")) {
      String[] x = hp.split(":");
      nodes.add(new HostAndPort(x[0], Integer.parseInt(x[1])));
    }
    String key = a.getOrDefault("key", "cl:hot");
    String hash = a.getOrDefault("hash", "cl:hash");
    int n = Integer.parseInt(a.getOrDefault("n", "2000"));
    try (JedisCluster c = new JedisCluster(nodes)) {
      String expected = c.get(key);
      String expectedField = c.hget(hash, "f");
      result(JedisClusterResults.INITIAL, expected);
      result(JedisClusterResults.INITIAL_FIELD, expectedField);
      Child.warmUp(
          JedisClusterResults.WARMUP,
          List.of(key, hash),
          () -> {
            c.get(key);
            c.hget(hash, "f");
          },
          8000,
          3000);
      Child.reportJmx(JedisClusterResults.AFTER_WARMUP_JMX);
      sync("reads");
      long mismatches = 0;
      for (int i = 0; i < n; i++) {
        if (!expected.equals(c.get(key))) {
          mismatches++;
        }
        if (i % 2 == 0 && !expectedField.equals(c.hget(hash, "f"))) {
          mismatches++;
        }
      }
      result(JedisClusterResults.GETS, (long) n);
      result(JedisClusterResults.HGETS, (n + 1) / 2L);
      result(JedisClusterResults.MISMATCHES, mismatches);
      result(JedisClusterResults.TRACKING_SERVERS, Child.jmxTexts("TrackingServers"));
      sync("reads-done");
      c.set(key, "cluster-written");
      result(JedisClusterResults.WRITE_READ_BACK, c.get(key));
      Ops.hset(c, hash, "f", "field-written");
      result(JedisClusterResults.HSET_READ_BACK, c.hget(hash, "f"));
      ClusterRedirections.run(c, nodes.iterator().next(), key);
      Child.reportJmx(JedisClusterResults.END_JMX);
      result(RunResults.DONE, true);
    } catch (Throwable t) {
      result(RunResults.FAILURE, t.toString());
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }
}
