package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.SentinelResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

/**
 * A hot key read through a client that finds its master through a sentinel ({@code
 * JedisSentinelPool}, or Lettuce's {@code RedisClient} with a sentinel URI), while another process
 * (a raw connection the agent does not see) writes it on the master, gives it a TTL, and has the
 * sentinel fail the master over to its replica. Reports what the master saw (INFO commandstats,
 * {@code OBJECT IDLETIME}) and how long each write stayed unseen. Usage: {@code --client
 * jedis|lettuce --sentinel host:port --master-name name --fail-over true|false}.
 */
public final class SentinelApp {
  private static final String KEY = "sentinel:hot";
  private static final long TTL_MILLIS = 1_500;
  private static final long WRITES = 10;

  private SentinelApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    String[] sentinelAddress = a.get("sentinel").split(":");
    String masterName = a.get("master-name");
    boolean failingOver = Boolean.parseBoolean(a.get("fail-over"));
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          try (RawRedis sentinel =
              new RawRedis(sentinelAddress[0], Integer.parseInt(sentinelAddress[1]))) {
            Function<String, String> read =
                "lettuce".equals(a.get("client"))
                    ? OnLettuce.open(a.get("sentinel"), masterName, closeables)
                    : OnJedis.open(a.get("sentinel"), masterName, closeables);
            String before = masterOf(sentinel, masterName);
            result(SentinelResults.master("before"), before);
            long lastWritten;
            try (RawRedis master = connect(before)) {
              master.call("SET", KEY, "0");
              Child.warmUp(
                  SentinelResults.WARMUP,
                  List.of(KEY),
                  Child.reading(() -> read.apply(KEY)),
                  15_000,
                  3_000);
              servedWithoutReachingTheMaster(read, master);
              lastWritten = writesAreSeen("before", read, master, 1);
              servedAndTouched("before", read, master);
              expiresWithItsTtl(read, master);
              lastWritten++;
              master.call("SET", KEY, Long.toString(lastWritten));
              master.call("WAIT", "1", "5000");
            }
            if (!failingOver) {
              return;
            }
            failOver(read, sentinel, masterName, before, lastWritten);
            String after = masterOf(sentinel, masterName);
            result(SentinelResults.master("after"), after);
            try (RawRedis master = connect(after)) {
              writesAreSeen("after", read, master, lastWritten + 1);
              servedAndTouched("after", read, master);
            }
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        false);
  }

  /** 1000 reads of the hot key: how many the agent answered, and how many GETs the master took. */
  private static void servedWithoutReachingTheMaster(
      Function<String, String> read, RawRedis master) {
    long gets = calls(master, "get");
    long hits = Child.counter("CacheHits");
    long reads = 1_000;
    for (int i = 0; i < reads; i++) {
      String unused = read.apply(KEY);
    }
    result(SentinelResults.COUNTED_HITS, Child.counter("CacheHits") - hits);
    result(SentinelResults.MASTER_GETS, calls(master, "get") - gets);
    result(SentinelResults.COUNTED_READS, reads);
  }

  /**
   * {@link #WRITES} writes of {@code first}, {@code first + 1}... to the master, each after 50 ms
   * of reads; reports the longest time from a write's acknowledgement until a read that started
   * then got it. Returns the last value written.
   */
  private static long writesAreSeen(
      String phase, Function<String, String> read, RawRedis master, long first) {
    long hits = Child.counter("CacheHits");
    long longestNanos = 0;
    long value = first;
    for (; value < first + WRITES; value++) {
      readFor(read, TimeUnit.MILLISECONDS.toNanos(50));
      master.call("SET", KEY, Long.toString(value));
      long acknowledged = System.nanoTime();
      long seenBy = -1;
      while (seenBy < 0 && System.nanoTime() - acknowledged < TimeUnit.SECONDS.toNanos(10)) {
        long start = System.nanoTime();
        if (Long.toString(value).equals(readOrNull(read))) {
          seenBy = start;
        }
      }
      longestNanos =
          Math.max(longestNanos, seenBy < 0 ? Long.MAX_VALUE : Math.max(0, seenBy - acknowledged));
    }
    result(SentinelResults.writeSeenMicros(phase), longestNanos / 1_000);
    result(SentinelResults.writes(phase), WRITES);
    result(SentinelResults.hits(phase), Child.counter("CacheHits") - hits);
    return value - 1;
  }

  /**
   * Reads for 3.5 s, the key unchanged: the agent answers them, and its touches keep the key's
   * {@code OBJECT IDLETIME} on the master within a couple of seconds.
   */
  private static void servedAndTouched(
      String phase, Function<String, String> read, RawRedis master) {
    long touches = calls(master, "touch");
    long hits = Child.counter("CacheHits");
    readFor(read, TimeUnit.MILLISECONDS.toNanos(3_500));
    result(SentinelResults.hits(phase + ".served"), Child.counter("CacheHits") - hits);
    result(SentinelResults.idleWhileServed(phase), (Long) master.call("OBJECT", "IDLETIME", KEY));
    result(SentinelResults.masterTouches(phase), calls(master, "touch") - touches);
    result(SentinelResults.trackingServers(phase), Child.jmxTexts("TrackingServers"));
  }

  /**
   * The master gives the key a TTL; reads go on until they find it gone. Reports how late after the
   * TTL a read that started then still got the value (measured from the write's acknowledgement,
   * the latest moment the TTL can have started), the reads answered locally before, and the {@code
   * PTTL}s the master took.
   */
  private static void expiresWithItsTtl(Function<String, String> read, RawRedis master) {
    long pttls = calls(master, "pttl");
    long hits = Child.counter("CacheHits");
    master.call("SET", KEY, "expiring", "PX", Long.toString(TTL_MILLIS));
    long expiresBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TTL_MILLIS);
    long lateNanos = 0;
    long hitsBeforeTtl = -1;
    while (System.nanoTime() - expiresBy < TimeUnit.SECONDS.toNanos(1)) {
      long start = System.nanoTime();
      if (hitsBeforeTtl < 0 && start >= expiresBy) {
        hitsBeforeTtl = Child.counter("CacheHits") - hits;
      }
      if ("expiring".equals(read.apply(KEY))) {
        lateNanos = Math.max(lateNanos, start - expiresBy);
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
    result(SentinelResults.TTL_HITS, hitsBeforeTtl);
    result(SentinelResults.TTL_LATE_MICROS, lateNanos / 1_000);
    result(SentinelResults.MASTER_PTTLS, calls(master, "pttl") - pttls);
  }

  /**
   * Asks the sentinel to fail {@code before} over and reads until the sentinel names another master
   * and {@code before} replicates from it. Counts the reads that failed and those that returned a
   * value older than {@code lastWritten}, which the replica had acknowledged before.
   */
  private static void failOver(
      Function<String, String> read,
      RawRedis sentinel,
      String masterName,
      String before,
      long lastWritten) {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.SECONDS.toNanos(40);
    long failed = 0;
    long older = 0;
    Object asked = sentinel.call("SENTINEL", "FAILOVER", masterName);
    while (!"OK".equals(asked)) {
      // a sentinel that has just seen a replica (again) may not find it good enough yet
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("SENTINEL FAILOVER: " + asked);
      }
      readFor(read, TimeUnit.MILLISECONDS.toNanos(100));
      asked = sentinel.call("SENTINEL", "FAILOVER", masterName);
    }
    long nextCheck = System.nanoTime();
    while (true) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no failover within 40 s: master " + masterOf(sentinel, masterName));
      }
      if (System.nanoTime() >= nextCheck) {
        if (!masterOf(sentinel, masterName).equals(before) && replicating(before)) {
          break;
        }
        nextCheck = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
      }
      try {
        String value = read.apply(KEY);
        if (value == null || Long.parseLong(value) < lastWritten) {
          older++;
        }
      } catch (RuntimeException e) {
        failed++;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
    result(SentinelResults.FAILOVER_MILLIS, (System.nanoTime() - start) / 1_000_000);
    result(SentinelResults.FAILOVER_FAILED_READS, failed);
    result(SentinelResults.FAILOVER_OLDER_READS, older);
  }

  /** Whether the server at {@code address} is a replica whose link to its master is up. */
  private static boolean replicating(String address) {
    try (RawRedis server = connect(address)) {
      return server.call("ROLE") instanceof List<?> role
          && "slave".equals(role.get(0))
          && "connected".equals(role.get(3));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static void readFor(Function<String, String> read, long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      readOrNull(read);
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }
  }

  /** A read whose failure (the client's, while the master moves) counts as no answer. */
  private static String readOrNull(Function<String, String> read) {
    try {
      return read.apply(KEY);
    } catch (RuntimeException e) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      return null;
    }
  }

  private static String masterOf(RawRedis sentinel, String masterName) {
    List<?> address = (List<?>) sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
    return address.get(0) + ":" + address.get(1);
  }

  private static RawRedis connect(String address) {
    String[] hp = address.split(":");
    return new RawRedis(hp[0], Integer.parseInt(hp[1]));
  }

  /** Calls of {@code command} so far, from the server's INFO commandstats. */
  private static long calls(RawRedis server, String command) {
    String prefix = "cmdstat_" + command + ":calls=";
    for (String line : ((String) server.call("INFO", "commandstats")).split("\r\n")) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
      }
    }
    return 0;
  }

  /** Apart, so that a run on one client never loads the other's classes. */
  private static final class OnJedis {
    static Function<String, String> open(
        String sentinel, String masterName, List<AutoCloseable> closeables) {
      JedisSentinelPool pool = new JedisSentinelPool(masterName, new HashSet<>(List.of(sentinel)));
      closeables.add(pool);
      return key -> {
        try (Jedis jedis = pool.getResource()) {
          return jedis.get(key);
        }
      };
    }
  }

  private static final class OnLettuce {
    static Function<String, String> open(
        String sentinel, String masterName, List<AutoCloseable> closeables) {
      String[] hp = sentinel.split(":");
      RedisClient client =
          RedisClient.create(
              RedisURI.Builder.sentinel(hp[0], Integer.parseInt(hp[1]), masterName).build());
      StatefulRedisConnection<String, String> connection = client.connect();
      closeables.add(connection);
      closeables.add(client::shutdown);
      return key -> connection.sync().get(key);
    }
  }
}
