package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.EvictionResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * A cache-aside application under memory pressure: one thread reads a hot key at a steady pace and
 * sets it again whenever it finds it gone, while a writer the agent does not see (a raw connection)
 * adds cold 1 KB keys, so that Redis, at its {@code maxmemory}, keeps evicting. With {@code
 * --volatile true} every key gets an hour's TTL, as a {@code volatile-*} policy needs. Reports how
 * often the hot key was found evicted, and what Redis's eviction sees of it at the end: {@code
 * OBJECT IDLETIME} under an LRU policy, {@code OBJECT FREQ} at the start and the end under an LFU
 * one (where the run lasts past a minute boundary of Redis's clock, so that the counter's decay
 * applies at least once). Usage: {@code --client jedis|lettuce --redis host:port --key k --seconds
 * n --lfu true|false --volatile true|false --warmup-reads-per-second r}.
 */
public final class EvictionApp {
  private static final long READS_PER_SECOND = 2_000;
  private static final long COLD_WRITES_PER_SECOND = 3_000;
  private static final String COLD_VALUE = "x".repeat(1024);
  private static final String HOT_VALUE = "hot-value";

  private EvictionApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    String host = a.host();
    int port = a.port();
    String key = a.key();
    boolean lfu = a.flag("lfu");
    boolean withTtl = a.flag("volatile");
    long seconds = a.seconds();
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          AtomicBoolean stop = new AtomicBoolean();
          try (RawRedis admin = new RawRedis(host, port)) {
            KeyAccess access =
                a.lettuce()
                    ? OnLettuce.open(host, port, key, withTtl, closeables)
                    : OnJedis.open(host, port, key, withTtl, closeables);
            Supplier<String> get = access.get();
            Consumer<String> set = access.set();
            set.accept(HOT_VALUE);
            Thread writer = coldWriter(host, port, withTtl, stop);
            writer.start();
            awaitEvictions(admin);
            CacheAsideReader reader = new CacheAsideReader(get, set);
            warmUp(reader, a.number("warmup-reads-per-second"));
            long evictedBefore = evictedKeys(admin);
            long freqStart = lfu ? (Long) admin.call("OBJECT", "FREQ", key) : -1;
            long hitsBefore = Child.counter("CacheHits");
            long reloadsBefore = reader.reloads;
            long runSeconds = lfu ? Math.max(seconds, secondsToNextMinute(admin) + 5) : seconds;
            reader.readFor(TimeUnit.SECONDS.toNanos(runSeconds), READS_PER_SECOND);
            long hits = Child.counter("CacheHits");
            result(EvictionResults.HITS, hits < 0 ? -1 : hits - hitsBefore);
            result(EvictionResults.RELOADS, reader.reloads - reloadsBefore);
            result(EvictionResults.READS, reader.reads);
            result(EvictionResults.EVICTED, evictedKeys(admin) - evictedBefore);
            result(EvictionResults.SECONDS, runSeconds);
            result(EvictionResults.FREQ_START, freqStart);
            result(EvictionResults.FREQ_END, lfu ? (Long) admin.call("OBJECT", "FREQ", key) : -1L);
            result(
                EvictionResults.IDLE_SECONDS,
                lfu ? -1L : (Long) admin.call("OBJECT", "IDLETIME", key));
            stop.set(true);
            writer.join();
          } finally {
            stop.set(true);
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        false);
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
      return new KeyAccess(
          () -> connection.sync().get(key),
          withTtl
              ? v -> connection.sync().set(key, v, SetArgs.Builder.ex(3600))
              : v -> connection.sync().set(key, v));
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

  private static Thread coldWriter(String host, int port, boolean withTtl, AtomicBoolean stop) {
    Thread writer =
        new Thread(
            () -> {
              try (RawRedis raw = new RawRedis(host, port)) {
                long start = System.nanoTime();
                long written = 0;
                while (!stop.get()) {
                  String cold = "cold:" + written;
                  Object reply =
                      withTtl
                          ? raw.call("SET", cold, COLD_VALUE, "EX", "3600")
                          : raw.call("SET", cold, COLD_VALUE);
                  if (!"OK".equals(reply)) {
                    throw new IllegalStateException("SET " + cold + " answered " + reply);
                  }
                  written++;
                  pace(start, written, COLD_WRITES_PER_SECOND);
                }
              }
            },
            "cold-writer");
    writer.setDaemon(true);
    return writer;
  }

  /** Until Redis is full and evicting, at most 30 s. */
  private static void awaitEvictions(RawRedis admin) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (evictedKeys(admin) == 0) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("Redis evicted nothing in 30 s: is maxmemory set?");
      }
      Thread.sleep(50);
    }
  }

  private static long evictedKeys(RawRedis admin) {
    String info = String.valueOf(admin.call("INFO", "stats"));
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
