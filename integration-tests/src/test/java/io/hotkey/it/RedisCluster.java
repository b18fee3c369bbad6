package io.hotkey.it;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

/** A local Redis Cluster: N masters, slots split evenly, formed by CLUSTER ADDSLOTS + MEET. */
public final class RedisCluster implements AutoCloseable {
  private static final int SLOTS = 16384;
  private final List<RedisServer> nodes;

  private RedisCluster(List<RedisServer> nodes) {
    this.nodes = nodes;
  }

  static RedisCluster form(List<RedisServer> nodes) throws Exception {
    int n = nodes.size();
    for (int i = 0; i < n; i++) {
      int from = i * SLOTS / n;
      int to = (i + 1) * SLOTS / n;
      int[] slots = new int[to - from];
      for (int s = from; s < to; s++) {
        slots[s - from] = s;
      }
      try (Jedis j = nodes.get(i).jedis()) {
        j.clusterAddSlots(slots);
      }
    }
    try (Jedis first = nodes.get(0).jedis()) {
      for (int i = 1; i < n; i++) {
        first.clusterMeet(nodes.get(i).host(), nodes.get(i).port());
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < deadline) {
      boolean ok = true;
      for (RedisServer node : nodes) {
        try (Jedis j = node.jedis()) {
          String info = j.clusterInfo();
          last = node.address() + ": " + info.replace("\r\n", " ");
          if (!info.contains("cluster_state:ok")
              || !info.contains("cluster_known_nodes:" + n)
              || !info.contains("cluster_slots_assigned:" + SLOTS)) {
            ok = false;
            break;
          }
        }
      }
      if (ok) {
        return new RedisCluster(nodes);
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("cluster did not become ok within 30s; last: " + last);
  }

  public List<RedisServer> nodes() {
    return nodes;
  }

  /** host:port,host:port,... as ClusterScenarioApp takes it. */
  public String addresses() {
    return nodes.stream().map(RedisServer::address).collect(Collectors.joining(","));
  }

  public JedisCluster client() {
    Set<HostAndPort> hp = new HashSet<>();
    for (RedisServer s : nodes) {
      hp.add(new HostAndPort(s.host(), s.port()));
    }
    return new JedisCluster(hp);
  }

  /** FLUSHALL (masters) + CONFIG RESETSTAT on every node. */
  public void reset() {
    nodes.forEach(RedisServer::reset);
  }

  /** Commandstats summed over all nodes. */
  public CommandStats stats() {
    CommandStats sum = new CommandStats(new java.util.HashMap<>());
    for (RedisServer s : nodes) {
      sum = sum.plus(s.stats());
    }
    return sum;
  }

  @Override
  public void close() {
    new ArrayList<>(nodes).forEach(RedisServer::close);
  }
}
