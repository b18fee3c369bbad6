package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.WriteThenReadResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Transaction;

/**
 * Keys served from their first access (run with {@code hotkey.debug.every-key-hot}), each read on
 * two connections so both hold an entry, then written through one path and read at once on both:
 * every read returns the key's last written value, whichever entry the connections held before.
 * Paths: the same connection, another connection, a pipeline and a transaction (a Cluster has no
 * cross-node transaction: the first two there). Then the sequence a third party's suite tried,
 * {@code SET k v; GET k} on one connection, counting the reads the agent answered. On Lettuce, a
 * write sent and not awaited (as Spring Data Redis' cache puts are) is then read on another thread
 * through the same connection: Redis answers a connection in order, so that read sees it. Usage:
 * {@code --client jedis|lettuce --redis host:port[,host:port...] --rounds n}.
 */
public final class WriteThenReadApp {
  private static final int KEYS = 16;

  private WriteThenReadApp() {}

  /**
   * Two connections' reads, and writes through each path on the first; on Lettuce, a write on the
   * first returning before its reply ({@code sendWrite}, else null).
   */
  private record Client(
      Function<String, String> read,
      Function<String, String> readOther,
      Map<String, BiConsumer<String, String>> writes,
      BiFunction<String, String, Future<?>> sendWrite) {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    List<String> nodes = List.of(a.get("redis").split(","));
    int rounds = Integer.parseInt(a.get("rounds"));
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          try {
            boolean lettuce = "lettuce".equals(a.get("client"));
            Client client =
                lettuce ? OnLettuce.open(nodes, closeables) : OnJedis.open(nodes, closeables);
            long hitsBefore = Child.counter("CacheHits");
            Map<String, String> written = new HashMap<>();
            for (Map.Entry<String, BiConsumer<String, String>> path : client.writes().entrySet()) {
              long mismatches = 0;
              for (int round = 0; round < rounds; round++) {
                String key = "wtr:{" + round % KEYS + "}";
                // both connections hold the key's entry before the write, with its last value
                if (!Objects.equals(written.get(key), client.read().apply(key))) {
                  mismatches++;
                }
                if (!Objects.equals(written.get(key), client.readOther().apply(key))) {
                  mismatches++;
                }
                String value = path.getKey() + "-" + round;
                written.put(key, value);
                path.getValue().accept(key, value);
                if (!value.equals(client.read().apply(key))) {
                  mismatches++;
                }
                if (!value.equals(client.readOther().apply(key))) {
                  mismatches++;
                }
              }
              result(WriteThenReadResults.rounds(path.getKey()), (long) rounds);
              result(WriteThenReadResults.mismatches(path.getKey()), mismatches);
            }
            BiConsumer<String, String> set = client.writes().get("same");
            long setGetMismatches = 0;
            long local = 0;
            for (int round = 0; round < rounds; round++) {
              String key = "wtr:setget:{" + round % KEYS + "}";
              if (!Objects.equals(written.get(key), client.read().apply(key))) {
                setGetMismatches++;
              }
              set.accept(key, Integer.toString(round));
              written.put(key, Integer.toString(round));
              long hits = Child.counter("CacheHits");
              if (!Integer.toString(round).equals(client.read().apply(key))) {
                setGetMismatches++;
              }
              local += Child.counter("CacheHits") - hits;
            }
            result(WriteThenReadResults.SET_GET_MISMATCHES, setGetMismatches);
            result(WriteThenReadResults.SET_GET_LOCAL, local);
            if (client.sendWrite() != null) {
              result(WriteThenReadResults.UNAWAITED_MISMATCHES, unawaitedWrites(client, rounds));
            }
            result(WriteThenReadResults.HITS, Child.counter("CacheHits") - hitsBefore);
            result(WriteThenReadResults.IDLE_WHILE_SERVED, idleWhileServed(client, nodes));
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        false);
  }

  /**
   * Rounds of: a read that holds the key's entry (its last value), a write sent and not awaited,
   * and a read on another thread through the same connection, which must see the write. Returns the
   * reads that did not get the value they must.
   */
  private static long unawaitedWrites(Client client, int rounds) throws Exception {
    ExecutorService anotherThread = Executors.newSingleThreadExecutor();
    try {
      long mismatches = 0;
      Map<String, String> written = new HashMap<>();
      for (int round = 0; round < rounds; round++) {
        String key = "wtr:unawaited:{" + round % KEYS + "}";
        if (!Objects.equals(written.get(key), client.read().apply(key))) {
          mismatches++;
        }
        String value = Integer.toString(round);
        written.put(key, value);
        Future<?> sent = client.sendWrite().apply(key, value);
        if (!value.equals(anotherThread.submit(() -> client.read().apply(key)).get())) {
          mismatches++;
        }
        sent.get(10, TimeUnit.SECONDS);
      }
      return mismatches;
    } finally {
      anotherThread.shutdown();
    }
  }

  /**
   * {@code OBJECT IDLETIME} of a key on its node after 5 s in which every read of it was answered
   * locally: the agent's touches keep it within about 2 s.
   */
  private static long idleWhileServed(Client client, List<String> nodes) {
    String key = "wtr:touched";
    client.writes().get("same").accept(key, "v");
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < end) {
      if (!"v".equals(client.read().apply(key))) {
        throw new IllegalStateException(key + " changed");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    try (RawRedis owner = RawRedis.ownerOf(nodes, key)) {
      return (Long) owner.call("OBJECT", "IDLETIME", key);
    }
  }

  /** Apart, so that a run on one client never loads the other's classes. */
  private static final class OnJedis {
    static Client open(List<String> nodes, List<AutoCloseable> closeables) {
      Map<String, BiConsumer<String, String>> writes = new LinkedHashMap<>();
      if (nodes.size() > 1) {
        Set<HostAndPort> seeds = new HashSet<>();
        for (String node : nodes) {
          seeds.add(HostAndPort.from(node));
        }
        JedisCluster same = new JedisCluster(seeds);
        JedisCluster other = new JedisCluster(seeds);
        closeables.add(same);
        closeables.add(other);
        writes.put("same", same::set);
        writes.put("other", other::set);
        return new Client(same::get, other::get, writes, null);
      }
      HostAndPort server = HostAndPort.from(nodes.get(0));
      Jedis same = new Jedis(server);
      Jedis other = new Jedis(server);
      closeables.add(same);
      closeables.add(other);
      writes.put("same", same::set);
      writes.put("other", other::set);
      writes.put(
          "pipeline",
          (key, value) -> {
            Pipeline pipeline = same.pipelined();
            pipeline.set(key, value);
            pipeline.sync();
          });
      writes.put(
          "transaction",
          (key, value) -> {
            Transaction transaction = same.multi();
            transaction.set(key, value);
            transaction.exec();
          });
      return new Client(same::get, other::get, writes, null);
    }
  }

  private static final class OnLettuce {
    static Client open(List<String> nodes, List<AutoCloseable> closeables) {
      Map<String, BiConsumer<String, String>> writes = new LinkedHashMap<>();
      if (nodes.size() > 1) {
        RedisClusterClient cluster = RedisClusterClient.create("redis://" + nodes.get(0));
        StatefulRedisClusterConnection<String, String> same = cluster.connect();
        StatefulRedisClusterConnection<String, String> other = cluster.connect();
        closeables.add(same);
        closeables.add(other);
        closeables.add(cluster::shutdown);
        writes.put("same", (key, value) -> same.sync().set(key, value));
        writes.put("other", (key, value) -> other.sync().set(key, value));
        return new Client(
            key -> same.sync().get(key),
            key -> other.sync().get(key),
            writes,
            (key, value) -> same.async().set(key, value));
      }
      String[] hp = nodes.get(0).split(":");
      RedisClient client =
          RedisClient.create(
              RedisURI.builder().withHost(hp[0]).withPort(Integer.parseInt(hp[1])).build());
      StatefulRedisConnection<String, String> same = client.connect();
      StatefulRedisConnection<String, String> other = client.connect();
      closeables.add(same);
      closeables.add(other);
      closeables.add(client::shutdown);
      RedisCommands<String, String> sync = same.sync();
      writes.put("same", sync::set);
      writes.put("other", (key, value) -> other.sync().set(key, value));
      writes.put(
          "pipeline",
          (key, value) -> {
            same.setAutoFlushCommands(false);
            try {
              RedisFuture<String> written = same.async().set(key, value);
              same.flushCommands();
              written.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            } finally {
              same.setAutoFlushCommands(true);
            }
          });
      writes.put(
          "transaction",
          (key, value) -> {
            sync.multi();
            sync.set(key, value);
            sync.exec();
          });
      return new Client(
          sync::get,
          key -> other.sync().get(key),
          writes,
          (key, value) -> same.async().set(key, value));
    }
  }
}
