package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.JedisClusterResults;
import io.hotkey.it.app.results.ResultName;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * A hot key of a JedisCluster across the abnormal paths of a cluster: a cluster pipeline abandoned
 * unsynced, then writes that Redis redirects with ASK (its slot half migrated) and with MOVED (the
 * slot moved to another master while the client still routes it to the old one). After each write
 * returns, the next read must see it. Reports {@code ok} or what was read, as {@link
 * JedisClusterResults#AFTER_ABANDONED_PIPELINE}, {@link JedisClusterResults#ASK_REDIRECTED} and
 * {@link JedisClusterResults#MOVED_REDIRECTED}.
 */
final class ClusterRedirections {
  private static final Class<?>[] SS = {String.class, String.class};

  private ClusterRedirections() {}

  /** A master, its id, and whether it serves {@code slot}. */
  private static final class Master {
    final String id;
    final HostAndPort address;
    final boolean ownsSlot;

    Master(String id, HostAndPort address, boolean ownsSlot) {
      this.id = id;
      this.address = address;
      this.ownsSlot = ownsSlot;
    }
  }

  static void run(JedisCluster cluster, HostAndPort anyNode, String key) {
    if (hasClusterPipelines(cluster)) {
      Object pipeline = Ops.call(cluster, "pipelined", new Class<?>[0]);
      Ops.call(pipeline, "set", SS, key + ":other", "x");
      // left unsynced and unclosed
      writeThenRead(
          cluster, key, "after-abandoned-pipeline", JedisClusterResults.AFTER_ABANDONED_PIPELINE);
    } else {
      result(JedisClusterResults.AFTER_ABANDONED_PIPELINE, JedisClusterResults.NO_CLUSTER_PIPELINE);
    }

    List<Master> masters;
    long slot;
    try (RawRedis node = new RawRedis(anyNode.getHost(), anyNode.getPort())) {
      slot = (Long) node.call("CLUSTER", "KEYSLOT", key);
      masters = masters(node, slot);
    }
    Master from = masters.stream().filter(m -> m.ownsSlot).findFirst().orElseThrow();
    Master to = masters.stream().filter(m -> !m.ownsSlot).findFirst().orElseThrow();
    try (RawRedis source = new RawRedis(from.address.getHost(), from.address.getPort());
        RawRedis target = new RawRedis(to.address.getHost(), to.address.getPort())) {
      String s = String.valueOf(slot);
      target.call("CLUSTER", "SETSLOT", s, "IMPORTING", from.id);
      source.call("CLUSTER", "SETSLOT", s, "MIGRATING", to.id);
      require(
          source.call(
              "MIGRATE",
              to.address.getHost(),
              String.valueOf(to.address.getPort()),
              "",
              "0",
              "5000",
              "KEYS",
              key),
          "MIGRATE");
      writeThenRead(cluster, key, "during-migration", JedisClusterResults.ASK_REDIRECTED);
      for (Master m : masters) {
        try (RawRedis each = new RawRedis(m.address.getHost(), m.address.getPort())) {
          each.call("CLUSTER", "SETSLOT", s, "NODE", to.id);
        }
      }
    }
    writeThenRead(cluster, key, "after-migration", JedisClusterResults.MOVED_REDIRECTED);
  }

  private static boolean hasClusterPipelines(JedisCluster cluster) {
    try {
      cluster.getClass().getMethod("pipelined");
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  private static void writeThenRead(
      JedisCluster cluster, String key, String value, ResultName<String> outcome) {
    for (int i = 0; i < 3; i++) {
      cluster.get(key);
    }
    cluster.set(key, value);
    String seen = cluster.get(key);
    result(outcome, value.equals(seen) ? "ok" : "wrote " + value + ", read " + seen);
  }

  private static void require(Object reply, String what) {
    if (!"OK".equals(reply) && !"NOKEY".equals(reply)) {
      throw new IllegalStateException(what + ": " + reply);
    }
  }

  private static List<Master> masters(RawRedis node, long slot) {
    List<Master> masters = new ArrayList<>();
    for (String line : String.valueOf(node.call("CLUSTER", "NODES")).split("\n")) {
      String[] f = line.trim().split(" ");
      if (f.length < 8 || !f[2].contains("master")) {
        continue;
      }
      String hostPort = f[1].split("@")[0];
      int colon = hostPort.lastIndexOf(':');
      HostAndPort address =
          new HostAndPort(
              hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
      boolean owns = false;
      for (int i = 8; i < f.length; i++) {
        if (f[i].startsWith("[")) {
          continue;
        }
        String[] range = f[i].split("-");
        long lo = Long.parseLong(range[0]);
        long hi = range.length > 1 ? Long.parseLong(range[1]) : lo;
        owns |= slot >= lo && slot <= hi;
      }
      masters.add(new Master(f[0], address, owns));
    }
    return masters;
  }
}
