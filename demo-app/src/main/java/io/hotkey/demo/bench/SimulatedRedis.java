package io.hotkey.demo.bench;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The real Redis servers {@link FleetSimulator} measures: one standalone server, or a Cluster of 3
 * masters (slots split evenly, formed with {@code CLUSTER ADDSLOTS} and {@code MEET}), each a
 * {@code redis-server} process on 127.0.0.1 with persistence off, stopped on close.
 */
final class SimulatedRedis implements AutoCloseable {
  private static final int SLOTS = 16384;
  private final List<Process> processes = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final List<Path> dirs = new ArrayList<>();

  private SimulatedRedis() {}

  static SimulatedRedis start(boolean cluster, String redisServer) throws Exception {
    SimulatedRedis redis = new SimulatedRedis();
    try {
      int nodes = cluster ? 3 : 1;
      List<Integer> busPorts = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        int port = freePort();
        Path dir = Files.createTempDirectory("fleet-sim-redis");
        List<String> command =
            new ArrayList<>(
                List.of(
                    redisServer,
                    "--port",
                    Integer.toString(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    dir.toString(),
                    "--maxclients",
                    "10000"));
        if (cluster) {
          int bus = freePort();
          busPorts.add(bus);
          command.addAll(
              List.of(
                  "--cluster-enabled",
                  "yes",
                  "--cluster-config-file",
                  "nodes.conf",
                  "--cluster-port",
                  Integer.toString(bus)));
        }
        redis.dirs.add(dir);
        redis.ports.add(port);
        redis.processes.add(
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start());
        redis.awaitPing(i);
      }
      if (cluster) {
        redis.formCluster(busPorts);
      }
      return redis;
    } catch (Exception e) {
      redis.close();
      throw e;
    }
  }

  private void formCluster(List<Integer> busPorts) throws Exception {
    int nodes = ports.size();
    for (int i = 0; i < nodes; i++) {
      List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
      for (int slot = i * SLOTS / nodes; slot < (i + 1) * SLOTS / nodes; slot++) {
        addSlots.add(Integer.toString(slot));
      }
      call(i, addSlots.toArray(new String[0]));
    }
    for (int i = 1; i < nodes; i++) {
      call(
          0,
          "CLUSTER",
          "MEET",
          "127.0.0.1",
          Integer.toString(ports.get(i)),
          Integer.toString(busPorts.get(i)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      boolean ok = true;
      for (int i = 0; i < nodes; i++) {
        String info = text(call(i, "CLUSTER", "INFO"));
        ok &= info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes);
      }
      if (ok) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the Cluster did not become ok within 30 s");
  }

  private void awaitPing(int node) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        call(node, "PING");
        return;
      } catch (IOException e) {
        Thread.sleep(20);
      }
    }
    throw new IllegalStateException("redis-server on port " + ports.get(node) + " did not start");
  }

  /** Where the fleet's client starts: the first node. */
  RedisEndpoint seed() {
    return RedisEndpoint.of("127.0.0.1", ports.get(0));
  }

  /**
   * Each node's CPU so far ({@code INFO cpu}) the fleet's script calls ({@code EVALSHA}) and
   * hot-list reads ({@code GET}), and every command's calls and microseconds ({@code INFO
   * commandstats}, which counts the commands scripts run too).
   */
  List<FleetSimulator.NodeStats> stats() throws IOException {
    List<FleetSimulator.NodeStats> stats = new ArrayList<>();
    for (int i = 0; i < ports.size(); i++) {
      String cpu = text(call(i, "INFO", "cpu"));
      String commands = text(call(i, "INFO", "commandstats"));
      double seconds = field(cpu, "used_cpu_sys:") + field(cpu, "used_cpu_user:");
      long calls = 0;
      long micros = 0;
      long reads = 0;
      Map<String, long[]> byCommand = new TreeMap<>();
      for (String line : commands.split("\r\n")) {
        if (line.startsWith("cmdstat_")) {
          byCommand.put(
              line.substring("cmdstat_".length(), line.indexOf(':')),
              new long[] {(long) field(line, "calls="), (long) field(line, "usec=")});
        }
        if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
          calls += (long) field(line, "calls=");
          micros += (long) field(line, "usec=");
        } else if (line.startsWith("cmdstat_get:")) {
          reads += (long) field(line, "calls=");
        }
      }
      stats.add(
          new FleetSimulator.NodeStats(
              "127.0.0.1:" + ports.get(i), seconds * 1000, calls, micros, reads, byCommand));
    }
    return stats;
  }

  private static double field(String text, String name) {
    int at = text.indexOf(name);
    if (at < 0) {
      return 0;
    }
    int from = at + name.length();
    int to = from;
    while (to < text.length() && "0123456789.".indexOf(text.charAt(to)) >= 0) {
      to++;
    }
    return Double.parseDouble(text.substring(from, to));
  }

  private Object call(int node, String... args) throws IOException {
    byte[][] command = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      command[i] = RespConnection.bytes(args[i]);
    }
    try (RespConnection connection =
        new RespConnection(RedisEndpoint.of("127.0.0.1", ports.get(node)), 2000, 10_000)) {
      return connection.call(command);
    }
  }

  private static String text(Object reply) {
    return reply instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (Process process : processes) {
      process.destroy();
    }
    for (Process process : processes) {
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
