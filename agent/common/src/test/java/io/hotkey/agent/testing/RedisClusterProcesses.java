package io.hotkey.agent.testing;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of Debian's Redis 7 masters on 127.0.0.1 (no replicas), slots split evenly,
 * formed with {@code CLUSTER ADDSLOTSRANGE} and {@code MEET}; each node's bus on a free port of its
 * own.
 */
public final class RedisClusterProcesses implements AutoCloseable {
  private static final int SLOTS = 16384;
  private final List<RedisProcess> nodes;

  private RedisClusterProcesses(List<RedisProcess> nodes) {
    this.nodes = nodes;
  }

  public static RedisClusterProcesses start(int masters) throws Exception {
    List<RedisProcess> nodes = new ArrayList<>();
    List<Integer> busPorts = new ArrayList<>();
    try {
      for (int i = 0; i < masters; i++) {
        int bus = RedisProcess.freePort();
        busPorts.add(bus);
        nodes.add(
            RedisProcess.start(
                RedisBuild.DEBIAN_7,
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "5000",
                "--cluster-port",
                Integer.toString(bus)));
      }
      RedisClusterProcesses cluster = new RedisClusterProcesses(nodes);
      for (int i = 0; i < masters; i++) {
        cluster.call(
            i,
            "CLUSTER",
            "ADDSLOTSRANGE",
            Integer.toString(i * SLOTS / masters),
            Integer.toString((i + 1) * SLOTS / masters - 1));
      }
      for (int i = 1; i < masters; i++) {
        cluster.call(
            0,
            "CLUSTER",
            "MEET",
            "127.0.0.1",
            Integer.toString(nodes.get(i).port()),
            Integer.toString(busPorts.get(i)));
      }
      cluster.awaitState("cluster_state:ok", "cluster_known_nodes:" + masters);
      return cluster;
    } catch (Exception e) {
      for (RedisProcess node : nodes) {
        node.close();
      }
      throw e;
    }
  }

  /** Waits until every node's {@code CLUSTER INFO} has these lines. */
  public void awaitState(String... lines) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (int i = 0; i < nodes.size() && all; i++) {
        last = text(call(i, "CLUSTER", "INFO"));
        for (String line : lines) {
          all &= last.contains(line);
        }
      }
      if (all) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("cluster not in state " + List.of(lines) + ": " + last);
  }

  public int size() {
    return nodes.size();
  }

  public RedisEndpoint endpoint(int node) {
    return RedisEndpoint.of("127.0.0.1", nodes.get(node).port());
  }

  public int port(int node) {
    return nodes.get(node).port();
  }

  /** Which node serves {@code slot}, by the split {@link #start} made (no migration since). */
  public int initialOwner(int slot) {
    return slot * nodes.size() / SLOTS;
  }

  public String nodeId(int node) throws IOException {
    return text(call(node, "CLUSTER", "MYID"));
  }

  /** One command on one node, on a connection of its own. */
  public Object call(int node, String... args) throws IOException {
    byte[][] command = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      command[i] = RespConnection.bytes(args[i]);
    }
    try (RespConnection connection = new RespConnection(endpoint(node), 2000, 10_000)) {
      return connection.call(command);
    }
  }

  public static String text(Object reply) {
    return reply instanceof byte[] array
        ? new String(array, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  @Override
  public void close() throws InterruptedException {
    for (RedisProcess node : nodes) {
      node.close();
    }
  }
}
