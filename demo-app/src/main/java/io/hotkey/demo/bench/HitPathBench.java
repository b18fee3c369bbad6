package io.hotkey.demo.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.RedisClient;

/**
 * One thread reading one key in a loop through a client's own API: run it with the agent and {@code
 * -Dhotkey.debug.every-key-hot=true}, and every read after the first is a served hit, so the
 * figures are the agent's hit path plus the client's own cost. Prints, per round, reads per second
 * of the reading thread's CPU time (a loop with nothing timed; on a busy machine wall-clock time
 * counts the waits for a core too), the bytes it allocated per read, and the median and 99th
 * percentile of one read timed alone ({@code System.nanoTime} around each; the same figures of an
 * empty timed call are printed once, to subtract). Two sides are references, run without the agent:
 * {@code caffeine}, the limit (a Caffeine lookup of the reply's bytes and their decoding into a
 * String, what a hit cannot do without), and {@code jedis-pool-noop}, {@code JedisPool}'s own
 * borrow and return with no command.
 *
 * <pre>
 * java [-javaagent:agent/target/hotkey-agent.jar -Dhotkey.debug.every-key-hot=true] \
 *   -cp demo-app/target/hotkey-demo.jar io.hotkey.demo.bench.HitPathBench \
 *   --side lettuce-sync|jedis|jedis-pool|jedis-pool-noop|caffeine --redis 127.0.0.1:6379 \
 *   [--warmup 5 --seconds 2 --rounds 5]
 * </pre>
 */
public final class HitPathBench {
  private static final String KEY = "hit-path-bench:key";
  private static final String VALUE =
      "a value of about the size of a small JSON record: {\"id\":42}";
  private static final int TIMED_READS = 1_000_000;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Where each read's result goes, so that the JIT cannot drop the work of producing it. */
  private static Object lastResult;

  private HitPathBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs options =
        BenchArgs.parse(args, "--side", "--redis", "--warmup", "--seconds", "--rounds");
    String side = options.text("--side").orElse("lettuce-sync").toLowerCase(Locale.ROOT);
    String redis = options.text("--redis").orElse("127.0.0.1:6379");
    String host = redis.substring(0, redis.lastIndexOf(':'));
    int port = Integer.parseInt(redis.substring(redis.lastIndexOf(':') + 1));

    switch (side) {
      case "caffeine" -> {
        Cache<String, byte[]> cache = Caffeine.newBuilder().maximumSize(10_000).build();
        cache.put(KEY, VALUE.getBytes(StandardCharsets.UTF_8));
        run(side, () -> new String(cache.getIfPresent(KEY), StandardCharsets.UTF_8), options);
      }
      case "lettuce-sync" -> {
        io.lettuce.core.RedisClient client =
            io.lettuce.core.RedisClient.create(RedisURI.create(host, port));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
          RedisCommands<String, String> commands = connection.sync();
          commands.set(KEY, VALUE);
          run(side, () -> commands.get(KEY), options);
        } finally {
          client.shutdown();
        }
      }
      case "jedis" -> {
        try (RedisClient client =
            RedisClient.builder()
                .hostAndPort(host, port)
                .poolConfig(new ConnectionPoolConfig())
                .build()) {
          client.set(KEY, VALUE);
          run(side, () -> client.get(KEY), options);
        }
      }
      case "jedis-pool" -> {
        try (JedisPool pool = new JedisPool(host, port)) {
          try (Jedis jedis = pool.getResource()) {
            jedis.set(KEY, VALUE);
          }
          run(
              side,
              () -> {
                try (Jedis jedis = pool.getResource()) {
                  return jedis.get(KEY);
                }
              },
              options);
        }
      }
      case "jedis-pool-noop" -> {
        try (JedisPool pool = new JedisPool(host, port)) {
          run(
              side,
              () -> {
                try (Jedis jedis = pool.getResource()) {
                  return jedis;
                }
              },
              options);
        }
      }
      default ->
          throw new IllegalArgumentException(
              "unknown side "
                  + side
                  + "; expected lettuce-sync, jedis, jedis-pool, jedis-pool-noop or caffeine");
    }
    System.out.println("the last read returned a " + lastResult.getClass().getSimpleName());
  }

  private static void run(String side, Supplier<Object> read, BenchArgs options) {
    int warmupSeconds = options.wholeNumber("--warmup", 5, 0);
    int seconds = options.wholeNumber("--seconds", 2, 1);
    int rounds = options.wholeNumber("--rounds", 5, 1);
    Object first = read.get();
    if (first == null) {
      throw new IllegalStateException("the first read found nothing");
    }
    loop(read, warmupSeconds * 1_000_000_000L);
    timed(read, TIMED_READS);
    Histogram empty = timed(() -> first, TIMED_READS);
    System.out.printf(
        "%s: warm-up %d s, rounds of %d s; an empty timed call p50 %d ns, p99 %d ns%n",
        side,
        warmupSeconds,
        seconds,
        empty.getValueAtPercentile(50),
        empty.getValueAtPercentile(99));
    for (int round = 1; round <= rounds; round++) {
      Rate rate = loop(read, seconds * 1_000_000_000L);
      Histogram latency = timed(read, TIMED_READS);
      System.out.printf(
          "%s round %d: %.2f M reads per CPU second (%.2f M/s of wall clock), %.0f bytes allocated"
              + " per read, timed p50 %d ns, p99 %d ns%n",
          side,
          round,
          rate.perCpuSecond() / 1e6,
          rate.perSecond() / 1e6,
          rate.bytesPerRead(),
          latency.getValueAtPercentile(50),
          latency.getValueAtPercentile(99));
    }
  }

  /**
   * Reads for {@code nanos} of wall-clock time; returns reads per second of the thread's own CPU
   * time, which a busy machine's scheduler does not dilute (wall-clock rate alongside).
   */
  private static Rate loop(Supplier<Object> read, long nanos) {
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
    long start = System.nanoTime();
    long reads = 0;
    long elapsed;
    do {
      for (int n = 0; n < 1024; n++) {
        lastResult = read.get();
      }
      reads += 1024;
      elapsed = System.nanoTime() - start;
    } while (elapsed < nanos);
    long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedStart;
    return new Rate(reads * 1e9 / cpu, reads * 1e9 / elapsed, (double) allocated / reads);
  }

  private record Rate(double perCpuSecond, double perSecond, double bytesPerRead) {}

  private static Histogram timed(Supplier<Object> read, int reads) {
    // grows with the longest read: a pause of the whole JVM (a collection, a profiler attaching)
    // must not end the run
    Histogram histogram = new Histogram(2);
    for (int n = 0; n < reads; n++) {
      long start = System.nanoTime();
      lastResult = read.get();
      histogram.recordValue(System.nanoTime() - start);
    }
    return histogram;
  }
}
