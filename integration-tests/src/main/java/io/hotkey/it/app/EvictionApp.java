package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.EvictionResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.params.SetParams;

/**
 * A cache-aside application under memory pressure: one thread reads a hot key at a steady pace and
 * sets it again whenever it finds it gone, while writers the agent does not see (raw connections,
 * one per node) add cold 1 KB keys, so that Redis, at its {@code maxmemory}, keeps evicting. The
 * writers fill Redis at full speed until it evicts, then keep a steady pace. With {@code --volatile
 * true} every key gets an hour's TTL, as a {@code volatile-*} policy needs. Several nodes are a
 * Cluster: the application reads through a Cluster client, each master gets its share of the cold
 * keys, and the hot key lives on one of them. Reports how often the hot key was found evicted, and
 * what its node's eviction sees of it at the end: {@code OBJECT IDLETIME} under an LRU policy,
 * {@code OBJECT FREQ} at the start and the end under an LFU one (where the run lasts past a minute
 * boundary of Redis's clock, so that the counter's decay applies at least once). Usage: {@code
 * --client jedis|lettuce --redis host:port[,host:port...] --key k --seconds n --lfu true|false
 * --volatile true|false --warmup-reads-per-second r}.
 */
public final class EvictionApp {
  private static final long READS_PER_SECOND = 2_000;
  private static final long COLD_WRITES_PER_SECOND = 3_000;
  private static final String COLD_VALUE = "x".repeat(1024);
  private static final String HOT_VALUE = "hot-value";

  /** Slots each node's cold keys are spread over. */
  private static final int COLD_TAGS_PER_NODE = 16;

  private EvictionApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    List<String> nodes = List.of(a.get("redis").split(","));
    String key = a.key();
    boolean lfu = a.flag("lfu");
    boolean withTtl = a.flag("volatile");
    long seconds = a.seconds();
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          AtomicBoolean stop = new AtomicBoolean();
          List<ColdWriter> writers = new ArrayList<>();
          try (RawRedis owner = RawRedis.ownerOf(nodes, key)) {
            KeyAccess access = open(a.lettuce(), nodes, key, withTtl, closeables);
            Supplier<String> get = access.get();
            Consumer<String> set = access.set();
            set.accept(HOT_VALUE);
            for (String node : nodes) {
              ColdWriter writer =
                  new ColdWriter(node, withTtl, COLD_WRITES_PER_SECOND / nodes.size(), stop);
              writers.add(writer);
              writer.start();
            }
            for (ColdWriter writer : writers) {
              writer.awaitFull();
            }
            CacheAsideReader reader = new CacheAsideReader(get, set);
            warmUp(reader, a.number("warmup-reads-per-second"));
            List<Long> evictedBefore = evictedKeys(nodes);
            long ownerEvictedBefore = evictedKeys(owner);
            long freqStart = lfu ? (Long) owner.call("OBJECT", "FREQ", key) : -1;
            long hitsBefore = Child.counter("CacheHits");
            long reloadsBefore = reader.reloads;
            long runSeconds = lfu ? Math.max(seconds, secondsToNextMinute(owner) + 5) : seconds;
            reader.readFor(TimeUnit.SECONDS.toNanos(runSeconds), READS_PER_SECOND);
            long hits = Child.counter("CacheHits");
            result(EvictionResults.HITS, hits < 0 ? -1 : hits - hitsBefore);
            result(EvictionResults.RELOADS, reader.reloads - reloadsBefore);
            result(EvictionResults.READS, reader.reads);
            result(EvictionResults.EVICTED, evictedKeys(owner) - ownerEvictedBefore);
            List<Long> evictedAfter = evictedKeys(nodes);
            long evictingNodes = 0;
            for (int i = 0; i < nodes.size(); i++) {
              evictingNodes += evictedAfter.get(i) > evictedBefore.get(i) ? 1 : 0;
            }
            result(EvictionResults.EVICTING_NODES, evictingNodes);
            result(EvictionResults.SECONDS, runSeconds);
            result(EvictionResults.FREQ_START, freqStart);
            result(EvictionResults.FREQ_END, lfu ? (Long) owner.call("OBJECT", "FREQ", key) : -1L);
            result(
                EvictionResults.IDLE_SECONDS,
                lfu ? -1L : (Long) owner.call("OBJECT", "IDLETIME", key));
            stop.set(true);
            for (ColdWriter writer : writers) {
              writer.finish();
            }
          } finally {
            stop.set(true);
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        false);
  }

  /** Through a Cluster client when there are several nodes. */
  private static KeyAccess open(
      boolean lettuce,
      List<String> nodes,
      String key,
      boolean withTtl,
      List<AutoCloseable> closeables) {
    String[] first = nodes.get(0).split(":");
    String host = first[0];
    int port = Integer.parseInt(first[1]);
    if (nodes.size() > 1) {
      return lettuce
          ? OnLettuce.openCluster(host, port, key, withTtl, closeables)
          : OnJedis.openCluster(nodes, key, withTtl, closeables);
    }
    return lettuce
        ? OnLettuce.open(host, port, key, withTtl, closeables)
        : OnJedis.open(host, port, key, withTtl, closeables);
  }

  /** The application's reads and writes of the hot key. */
  private record KeyAccess(Supplier<String> get, Consumer<String> set) {}

  /** Apart, so that a run on one client never loads the other's classes. */
  private static final class OnLettuce {
    static KeyAccess open(
        String host, int port, String key, boolean withTtl, List<AutoCloseable> closeables) {
      RedisClient client =
          RedisClient.create(RedisURI.builder().withHost(host).withPort(port).build());
      StatefulRedisConnection<String, String> connection = client.connect();
      closeables.add(connection);
      closeables.add(client::shutdown);
      return access(connection.sync(), key, withTtl);
    }

    static KeyAccess openCluster(
        String host, int port, String key, boolean withTtl, List<AutoCloseable> closeables) {
      RedisClusterClient client =
          RedisClusterClient.create(RedisURI.builder().withHost(host).withPort(port).build());
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      closeables.add(connection);
      closeables.add(client::shutdown);
      return access(connection.sync(), key, withTtl);
    }

    private static KeyAccess access(
        RedisStringCommands<String, String> sync, String key, boolean withTtl) {
      return new KeyAccess(
          () -> sync.get(key),
          withTtl ? v -> sync.set(key, v, SetArgs.Builder.ex(3600)) : v -> sync.set(key, v));
    }
  }

  private static final class OnJedis {
    static KeyAccess open(
        String host, int port, String key, boolean withTtl, List<AutoCloseable> closeables) {
      Jedis jedis = new Jedis(host, port);
      closeables.add(jedis);
      return new KeyAccess(
          () -> jedis.get(key),
          withTtl
              ? v -> jedis.set(key, v, SetParams.setParams().ex(3600))
              : v -> jedis.set(key, v));
    }

    static KeyAccess openCluster(
        List<String> nodes, String key, boolean withTtl, List<AutoCloseable> closeables) {
      Set<HostAndPort> seeds = new HashSet<>();
      for (String node : nodes) {
        seeds.add(HostAndPort.from(node));
      }
      JedisCluster jedis = new JedisCluster(seeds);
      closeables.add(jedis);
      return new KeyAccess(
          () -> jedis.get(key),
          withTtl
              ? v -> jedis.set(key, v, SetParams.setParams().ex(3600))
              : v -> jedis.set(key, v));
    }
  }

  /** Reads the hot key and sets it again when it was evicted, at a steady pace. */
  private static final class CacheAsideReader {
    final Supplier<String> get;
    final Consumer<String> set;
    long reads;
    long reloads;

    CacheAsideReader(Supplier<String> get, Consumer<String> set) {
      this.get = get;
      this.set = set;
    }

    void readFor(long nanos, long perSecond) {
      long start = System.nanoTime();
      long done = 0;
      while (System.nanoTime() - start < nanos) {
        String value = get.get();
        reads++;
        if (value == null) {
          reloads++;
          set.accept(HOT_VALUE);
        } else if (!HOT_VALUE.equals(value)) {
          throw new IllegalStateException("the hot key read " + value);
        }
        done++;
        pace(start, done, perSecond);
      }
    }
  }

  /**
   * Until the agent serves the key (at most 10 s); 3 s of reads without the agent. A slow warm-up
   * promotes the key after few reads, which leave a low LFU counter.
   */
  private static void warmUp(CacheAsideReader reader, long perSecond) {
    if (Child.counter("CacheHits") < 0) {
      reader.readFor(TimeUnit.SECONDS.toNanos(3), perSecond);
      return;
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long hits = Child.counter("CacheHits");
    while (System.nanoTime() < end && Child.counter("CacheHits") == hits) {
      reader.readFor(TimeUnit.MILLISECONDS.toNanos(100), perSecond);
    }
  }

  /**
   * Adds cold keys to one node: at full speed until the node evicts, then at {@code perSecond}. Its
   * keys carry hash tags of slots the node serves (all of them on a standalone server), spread over
   * {@link #COLD_TAGS_PER_NODE} slots.
   */
  private static final class ColdWriter extends Thread {
    private final String node;
    private final boolean withTtl;
    private final long perSecond;
    private final AtomicBoolean stop;
    private final CountDownLatch full = new CountDownLatch(1);
    private volatile Throwable failure;

    ColdWriter(String node, boolean withTtl, long perSecond, AtomicBoolean stop) {
      super("cold-writer-" + node);
      this.node = node;
      this.withTtl = withTtl;
      this.perSecond = perSecond;
      this.stop = stop;
      setDaemon(true);
    }

    @Override
    public void run() {
      String[] hp = node.split(":");
      try (RawRedis raw = new RawRedis(hp[0], Integer.parseInt(hp[1]))) {
        List<String> tags = tagsServedBy(raw);
        long written = 0;
        while (!stop.get() && evictedKeys(raw) == 0) {
          for (int i = 0; i < 500; i++) {
            write(raw, tags, written++);
          }
        }
        full.countDown();
        long start = System.nanoTime();
        long paced = 0;
        while (!stop.get()) {
          write(raw, tags, written++);
          paced++;
          pace(start, paced, perSecond);
        }
      } catch (Throwable t) {
        failure = t;
        full.countDown();
      }
    }

    private void write(RawRedis raw, List<String> tags, long n) {
      String cold = "cold:{" + tags.get((int) (n % tags.size())) + "}:" + n;
      Object reply =
          withTtl
              ? raw.call("SET", cold, COLD_VALUE, "EX", "3600")
              : raw.call("SET", cold, COLD_VALUE);
      if (!"OK".equals(reply)) {
        throw new IllegalStateException("SET " + cold + " on " + node + " answered " + reply);
      }
    }

    /** Until the node is full and evicting, at most 60 s (a busy machine's CPUs are shared). */
    void awaitFull() throws InterruptedException {
      if (!full.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(node + " evicted nothing in 60 s: is maxmemory set?");
      }
      throwIfFailed();
    }

    /** Once stopped: fails if a write did. */
    void finish() throws InterruptedException {
      join();
      throwIfFailed();
    }

    private void throwIfFailed() {
      if (failure != null) {
        throw new IllegalStateException("cold writer of " + node + " failed", failure);
      }
    }
  }

  /** Hash tags whose slots {@code node} serves: a Cluster node redirects the others. */
  private static List<String> tagsServedBy(RawRedis node) {
    List<String> tags = new ArrayList<>();
    for (int i = 0; tags.size() < COLD_TAGS_PER_NODE; i++) {
      if (i > 100_000) {
        throw new IllegalStateException("the node serves no slot");
      }
      String tag = "t" + i;
      if (!(node.call("EXISTS", "{" + tag + "}") instanceof String moved
          && moved.startsWith("ERR:MOVED"))) {
        tags.add(tag);
      }
    }
    return tags;
  }

  private static List<Long> evictedKeys(List<String> nodes) {
    List<Long> evicted = new ArrayList<>();
    for (String node : nodes) {
      String[] hp = node.split(":");
      try (RawRedis raw = new RawRedis(hp[0], Integer.parseInt(hp[1]))) {
        evicted.add(evictedKeys(raw));
      }
    }
    return evicted;
  }

  private static long evictedKeys(RawRedis node) {
    String info = String.valueOf(node.call("INFO", "stats"));
    return Arrays.stream(info.split("\r\n"))
        .filter(line -> line.startsWith("evicted_keys:"))
        .mapToLong(line -> Long.parseLong(line.substring("evicted_keys:".length()).trim()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("INFO stats has no evicted_keys"));
  }

  /** Seconds until the minute of Redis's clock (the LFU decay's) turns. */
  private static long secondsToNextMinute(RawRedis admin) {
    List<?> time = (List<?>) admin.call("TIME");
    return 60 - Long.parseLong(String.valueOf(time.get(0))) % 60;
  }

  /** Sleeps so that {@code done} operations since {@code start} keep to {@code perSecond}. */
  private static void pace(long start, long done, long perSecond) {
    long due = start + done * TimeUnit.SECONDS.toNanos(1) / perSecond;
    long ahead = due - System.nanoTime();
    if (ahead > 0) {
      LockSupport.parkNanos(ahead);
    }
  }
}
