package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.ExpiryResults;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * A hot key read without pause on one connection while another process (a raw connection the agent
 * does not see) gives it a TTL, in each way Redis has, then read until well past that TTL. For each
 * case reports how late a read still got the value ({@link ExpiryResults#lateMicros}), counted from
 * the latest moment the key can have expired: the reply of a {@code PTTL} sent right after the
 * change, plus its answer, plus Redis's millisecond rounding. Usage: {@code --client jedis|lettuce
 * --redis host:port[,host:port...] --key k --cases initial,SET-PX,...}, several nodes for a
 * Cluster; {@code initial} is a key that had its TTL before it became hot (the only case {@code
 * hotkey.cache.invalidation=ttl} can see).
 */
public final class ExpiryApp {
  private static final long TTL_MILLIS = 400;

  /** Reads go on this long past the expiry bound. */
  private static final long READ_PAST_MILLIS = 300;

  private ExpiryApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    List<String> nodes = List.of(a.get("redis").split(","));
    boolean cluster = nodes.size() > 1;
    String key = a.get("key");
    String[] cases = a.get("cases").split(",");
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          boolean lettuce = "lettuce".equals(a.get("client"));
          String[] hp = nodes.get(0).split(":");
          Supplier<String> reader;
          if (cluster) {
            reader =
                lettuce
                    ? LettuceGets.open("redis://" + nodes.get(0), null, true, key, closeables)
                    : clusterGets(nodes, key, closeables);
          } else {
            reader =
                lettuce
                    ? LettuceGets.open(hp[0], Integer.parseInt(hp[1]), key, closeables)
                    : JedisGets.open(hp[0], Integer.parseInt(hp[1]), key, closeables);
          }
          try (RawRedis other = RawRedis.ownerOf(nodes, key)) {
            other.call("SET", key, "v", "PX", "8000");
            Child.warmUp(ExpiryResults.WARMUP, List.of(key), Child.reading(reader), 15_000, 3_000);
            for (String expiryCase : cases) {
              if (!expiryCase.equals("initial")) {
                other.call("SET", key, "v");
                readUntilServed(reader);
                giveTtl(other, key, expiryCase);
              }
              readPastExpiry(other, key, reader, expiryCase);
            }
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  private static Supplier<String> clusterGets(
      List<String> nodes, String key, List<AutoCloseable> closeables) {
    Set<HostAndPort> seeds = new HashSet<>();
    for (String node : nodes) {
      String[] hp = node.split(":");
      seeds.add(new HostAndPort(hp[0], Integer.parseInt(hp[1])));
    }
    JedisCluster jedis = new JedisCluster(seeds);
    closeables.add(jedis);
    return () -> jedis.get(key);
  }

  /** Reads until one is answered locally (the key's TTL known to be none again), at most 5 s. */
  private static void readUntilServed(Supplier<String> reader) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < end) {
      long hits = Child.counter("CacheHits");
      Object unused = reader.get();
      if (Child.counter("CacheHits") > hits) {
        return;
      }
    }
  }

  private static void giveTtl(RawRedis other, String key, String expiryCase) {
    String ms = Long.toString(TTL_MILLIS);
    Object reply =
        switch (expiryCase) {
          case "SET-PX" -> other.call("SET", key, "v2", "PX", ms);
          case "SET-EX" -> other.call("SET", key, "v2", "EX", "1");
          case "SET-PXAT" -> other.call("SET", key, "v2", "PXAT", redisMillis(other, TTL_MILLIS));
          case "SETEX" -> other.call("SETEX", key, "1", "v2");
          case "PSETEX" -> other.call("PSETEX", key, ms, "v2");
          case "EXPIRE" -> other.call("EXPIRE", key, "1");
          case "PEXPIRE" -> other.call("PEXPIRE", key, ms);
          case "PEXPIREAT" -> other.call("PEXPIREAT", key, redisMillis(other, TTL_MILLIS));
          case "GETEX" -> other.call("GETEX", key, "PX", ms);
          case "SET-KEEPTTL" -> {
            other.call("PEXPIRE", key, ms);
            yield other.call("SET", key, "v3", "KEEPTTL");
          }
          case "RESTORE" -> {
            // DUMP's payload is binary: it goes from DUMP to RESTORE inside Redis
            other.call("SET", key + ":source", "v4");
            yield other.call(
                "EVAL",
                "return redis.call('RESTORE', KEYS[1], ARGV[1],"
                    + " redis.call('DUMP', KEYS[2]), 'REPLACE')",
                "2",
                key,
                key + ":source",
                ms);
          }
          default -> throw new IllegalArgumentException("unknown case " + expiryCase);
        };
    if (reply instanceof String text && text.startsWith("ERR:")) {
      throw new IllegalStateException(expiryCase + ": " + text);
    }
  }

  /** Redis's own clock, {@code plusMillis} ahead, as a PXAT/PEXPIREAT argument. */
  private static String redisMillis(RawRedis other, long plusMillis) {
    List<?> time = (List<?>) other.call("TIME");
    long millis =
        Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
    return Long.toString(millis + plusMillis);
  }

  private static void readPastExpiry(
      RawRedis other, String key, Supplier<String> reader, String expiryCase) {
    Object pttl = other.call("PTTL", key);
    long answeredAt = System.nanoTime();
    if (!(pttl instanceof Long remaining) || remaining < 0) {
      throw new IllegalStateException(expiryCase + ": PTTL answered " + pttl);
    }
    // Redis counts in whole milliseconds: the key expires at most 1 ms after this
    long expiredBy = answeredAt + TimeUnit.MILLISECONDS.toNanos(remaining + 1);
    long hits = Child.counter("CacheHits");
    long hitsAtExpiry = -1;
    long valuesBefore = 0;
    long lateNanos = 0;
    long end = expiredBy + TimeUnit.MILLISECONDS.toNanos(READ_PAST_MILLIS);
    long started;
    while ((started = System.nanoTime()) < end) {
      if (hitsAtExpiry < 0 && started - expiredBy > 0) {
        hitsAtExpiry = Child.counter("CacheHits");
      }
      String value = reader.get();
      if (value == null) {
        continue;
      }
      if (started - expiredBy > 0) {
        lateNanos = Math.max(lateNanos, started - expiredBy);
      } else {
        valuesBefore++;
      }
    }
    if (hitsAtExpiry < 0) {
      // one read outlasted the whole window past the expiry (a stalled machine): all began before
      hitsAtExpiry = Child.counter("CacheHits");
    }
    result(ExpiryResults.lateMicros(expiryCase), TimeUnit.NANOSECONDS.toMicros(lateNanos));
    result(ExpiryResults.hits(expiryCase), hitsAtExpiry - hits);
    result(ExpiryResults.valuesBefore(expiryCase), valuesBefore);
  }
}
