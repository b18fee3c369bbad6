package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.FleetResults;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * One instance of a fleet: reads one key at a steady {@code --rate} per second for {@code
 * --seconds}, below the agent's local threshold, and reports when the agent started answering it
 * locally, its local answers and its reads ({@link FleetResults}). With {@code --cold-key c} it
 * reads that key too, as often. The instances start reading together: each one, once connected,
 * leaves a file in {@code --ready-dir} and waits until {@code --instances} files are there, so that
 * JVMs which start at different speeds do not make the fleet's rate ramp up slowly. Usage: {@code
 * --client jedis|lettuce --redis host:port --key k [--cold-key c] --rate n --seconds s --ready-dir
 * d --instances n}; {@code --redis host:port,host:port,...} names a Cluster's nodes, read through
 * {@code JedisCluster} or Lettuce's {@code RedisClusterClient}.
 */
public final class FleetApp {
  private FleetApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    String[] nodes = a.get("redis").split(",");
    String[] hp = nodes[0].split(":");
    String key = a.get("key");
    int rate = Integer.parseInt(a.get("rate"));
    long seconds = Long.parseLong(a.get("seconds"));
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          String host = hp[0];
          int port = Integer.parseInt(hp[1]);
          boolean lettuce = "lettuce".equals(a.get("client"));
          Function<String, Supplier<String>> open =
              nodes.length > 1
                  ? clusterReads(lettuce, nodes, closeables)
                  : lettuce
                      ? k -> LettuceGets.open(host, port, k, closeables)
                      : k -> JedisGets.open(host, port, k, closeables);
          Supplier<String> reader = open.apply(key);
          String coldKey = a.get("cold-key");
          Supplier<String> coldReader = coldKey == null ? () -> null : open.apply(coldKey);
          try {
            awaitTheFleet(Path.of(a.get("ready-dir")), Integer.parseInt(a.get("instances")));
            read(reader, coldReader, rate, seconds);
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  /** Reads of any key through one Cluster client of the application's own. */
  private static Function<String, Supplier<String>> clusterReads(
      boolean lettuce, String[] nodes, List<AutoCloseable> closeables) {
    if (lettuce) {
      List<RedisURI> seeds = new ArrayList<>();
      for (String node : nodes) {
        String[] hp = node.split(":");
        seeds.add(RedisURI.create(hp[0], Integer.parseInt(hp[1])));
      }
      RedisClusterClient client = RedisClusterClient.create(seeds);
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      closeables.add(client::shutdown);
      closeables.add(connection);
      return k -> () -> connection.sync().get(k);
    }
    Set<HostAndPort> seeds = new HashSet<>();
    for (String node : nodes) {
      seeds.add(HostAndPort.from(node));
    }
    JedisCluster cluster = new JedisCluster(seeds);
    closeables.add(cluster);
    return k -> () -> cluster.get(k);
  }

  private static void awaitTheFleet(Path readyDir, int instances)
      throws IOException, InterruptedException {
    Files.createFile(readyDir.resolve("ready-" + ProcessHandle.current().pid()));
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (countFiles(readyDir) < instances) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the other instances were not ready within 60 s");
      }
      Thread.sleep(5);
    }
  }

  private static long countFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.count();
    }
  }

  private static void read(
      Supplier<String> reader, Supplier<String> coldReader, int rate, long seconds)
      throws InterruptedException {
    long start = System.nanoTime();
    long intervalNanos = 1_000_000_000L / rate;
    long servedAfterMs = -1;
    long reads = 0;
    long hitsBefore = hits();
    long nextCheck = start;
    long due = start;
    while (System.nanoTime() - start < seconds * 1_000_000_000L) {
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      // never catch up after a stall: a burst would make the key hot on this instance alone
      due = Math.max(due, System.nanoTime() - intervalNanos) + intervalNanos;
      Object unusedHot = reader.get();
      Object unusedCold = coldReader.get();
      reads++;
      if (servedAfterMs < 0 && System.nanoTime() - nextCheck >= 0) {
        nextCheck = System.nanoTime() + 50_000_000L;
        if (hits() > hitsBefore) {
          servedAfterMs = (System.nanoTime() - start) / 1_000_000;
        }
      }
    }
    result(FleetResults.SERVED_AFTER_MS, servedAfterMs);
    result(FleetResults.READS, reads);
    result(FleetResults.HITS, hits() - hitsBefore);
  }

  private static long hits() {
    Object v = Child.jmx("CacheHits");
    return v instanceof Long l ? l : -1;
  }
}
