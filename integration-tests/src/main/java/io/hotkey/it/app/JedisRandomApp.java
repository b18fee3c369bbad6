package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.JedisRandomResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.UnifiedJedis;

/**
 * Random sequences, from one seed, of reads, writes, pipelines and transactions (completed or left
 * by an exception, closed or leaked), and connections closed and reopened, on several threads over
 * plain connections, a {@code JedisPool} and a pooled {@code UnifiedJedis}, with every key hot.
 *
 * <p>Each key is written by one thread only, with ever larger numbers, and its last returned write
 * is published. A read on any thread that started after a write returned must see that number or a
 * larger one; anything smaller is a violation, reported with the seed, the thread's recent
 * operations and what a {@link RawRedis} connection reads. Abandoned pipelines write keys of their
 * own, which no check reads, since whether they reach Redis is up to Jedis. Usage: {@code --redis
 * host:port --seed N [--millis 8000] [--threads 3]}.
 */
public final class JedisRandomApp {
  private static final int KEYS = 6;
  private static final Class<?>[] SS = {String.class, String.class};
  private static final Class<?>[] NONE = {};

  private final String host;
  private final int port;
  private final JedisPool pool;
  private final UnifiedJedis pooledClient;
  private final RawRedis raw;
  private final AtomicLongArray lastReturned = new AtomicLongArray(KEYS);
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong ops = new AtomicLong();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

  private JedisRandomApp(String host, int port) {
    this.host = host;
    this.port = port;
    this.pool = new JedisPool(new GenericObjectPoolConfig<>(), host, port, 2000);
    this.pooledClient = PooledReads.open(host, port);
    this.raw = new RawRedis(host, port);
  }

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    long seed = a.number("seed");
    result(JedisRandomResults.SEED, seed);
    Child.runAndExit(
        () ->
            new JedisRandomApp(a.host(), a.port())
                .run(seed, a.number("millis", 8000), (int) a.number("threads", 3)),
        true);
  }

  private static String key(int k) {
    return "rnd:k" + k;
  }

  private void run(long seed, long millis, int threads) throws InterruptedException {
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      raw.call("SET", key(k), "0");
      keys.add(key(k));
    }
    Child.warmUp(
        JedisRandomResults.WARMUP, keys, () -> keys.forEach(pooledClient::get), 8000, 3000);
    long deadline = System.nanoTime() + millis * 1_000_000L;
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int index = t;
      Random random = new Random(seed * 31 + t);
      Thread worker =
          new Thread(() -> new Worker(index, threads, random).run(deadline), "random-" + t);
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    for (int k = 0; k < KEYS; k++) {
      String truth = String.valueOf(raw.call("GET", key(k)));
      String pooled = pooledClient.get(key(k));
      String plain;
      try (Jedis j = pool.getResource()) {
        plain = j.get(key(k));
      }
      if (!truth.equals(pooled) || !truth.equals(plain)) {
        violations.add(
            "final "
                + key(k)
                + ": pooled client "
                + pooled
                + ", pooled Jedis "
                + plain
                + ", Redis "
                + truth);
      }
    }
    result(JedisRandomResults.OPERATIONS, ops.get());
    result(JedisRandomResults.READS, reads.get());
    result(JedisRandomResults.VIOLATIONS, (long) violations.size());
    result(JedisRandomResults.EXAMPLES, violations.stream().limit(3).toList());
  }

  /** One thread's random walk; it owns the keys {@code k} with {@code k % threads == index}. */
  private final class Worker {
    private final int index;
    private final Random random;
    private final List<Jedis> plain = new ArrayList<>();
    private final long[] written = new long[KEYS];
    private final List<String> recent = new ArrayList<>();
    private final List<Integer> owned = new ArrayList<>();

    Worker(int index, int threads, Random random) {
      this.index = index;
      this.random = random;
      for (int k = index; k < KEYS; k += threads) {
        owned.add(k);
      }
      plain.add(new Jedis(host, port));
      plain.add(new Jedis(host, port));
    }

    void run(long deadline) {
      while (System.nanoTime() < deadline) {
        int dice = random.nextInt(100);
        ops.incrementAndGet();
        if (dice < 45 || owned.isEmpty()) {
          read();
        } else if (dice < 65) {
          write();
        } else if (dice < 73) {
          pipelinedWrite();
        } else if (dice < 80) {
          transactionalWrite();
        } else if (dice < 92) {
          abandon();
        } else {
          reopen();
        }
      }
    }

    private void log(String op) {
      recent.add(op);
      if (recent.size() > 12) {
        recent.remove(0);
      }
    }

    private int ownKey() {
      return owned.get(random.nextInt(owned.size()));
    }

    private void read() {
      int k = random.nextInt(KEYS);
      long floor = lastReturned.get(k);
      int via = random.nextInt(3);
      String seen;
      if (via == 0) {
        seen = plain.get(random.nextInt(plain.size())).get(key(k));
      } else if (via == 1) {
        try (Jedis j = pool.getResource()) {
          seen = j.get(key(k));
        }
      } else {
        seen = pooledClient.get(key(k));
      }
      reads.incrementAndGet();
      log("read " + key(k) + "=" + seen + " via " + via);
      if (seen == null || Long.parseLong(seen) < floor) {
        violations.add(
            "thread "
                + index
                + " read "
                + key(k)
                + "="
                + seen
                + " via "
                + via
                + " after "
                + floor
                + " was written and returned; Redis has "
                + raw.call("GET", key(k))
                + "; recent: "
                + recent);
      }
    }

    private void published(int k, long value) {
      written[k] = value;
      lastReturned.set(k, value);
    }

    private void write() {
      int k = ownKey();
      long value = written[k] + 1;
      int via = random.nextInt(3);
      if (via == 0) {
        plain.get(random.nextInt(plain.size())).set(key(k), String.valueOf(value));
      } else if (via == 1) {
        try (Jedis j = pool.getResource()) {
          j.set(key(k), String.valueOf(value));
        }
      } else {
        pooledClient.set(key(k), String.valueOf(value));
      }
      log("set " + key(k) + "=" + value + " via " + via);
      published(k, value);
    }

    private void pipelinedWrite() {
      int k = ownKey();
      long value = written[k] + 1;
      if (random.nextBoolean()) {
        Pipeline p = plain.get(random.nextInt(plain.size())).pipelined();
        p.get(key(k));
        p.set(key(k), String.valueOf(value));
        p.sync();
      } else {
        Object p = Ops.call(pooledClient, "pipelined", NONE);
        Ops.call(p, "set", SS, key(k), String.valueOf(value));
        Ops.call(p, "close", NONE);
      }
      log("pipelined set " + key(k) + "=" + value);
      published(k, value);
    }

    private void transactionalWrite() {
      int k = ownKey();
      long value = written[k] + 1;
      try (Jedis j = pool.getResource()) {
        Transaction t = j.multi();
        t.set(key(k), String.valueOf(value));
        t.exec();
      }
      log("multi set " + key(k) + "=" + value);
      published(k, value);
    }

    /** A pipeline or transaction left by an exception: closed, or (a plain connection's) leaked. */
    private void abandon() {
      String scratch = "rnd:scratch:" + index + ":" + random.nextInt(4);
      int how = random.nextInt(4);
      try {
        if (how == 0) {
          Jedis j = plain.remove(random.nextInt(plain.size()));
          plain.add(new Jedis(host, port));
          Pipeline p = j.pipelined();
          p.set(scratch, "x");
          if (random.nextBoolean()) {
            j.close();
          }
        } else if (how == 1) {
          try (Jedis j = pool.getResource()) {
            Transaction t = j.multi();
            t.set(scratch, "x");
            throw new IllegalStateException("abandoned");
          }
        } else if (how == 2) {
          try (Jedis j = pool.getResource()) {
            Pipeline p = j.pipelined();
            p.set(scratch, "x");
            throw new IllegalStateException("abandoned");
          }
        } else {
          Object p = Ops.call(pooledClient, "pipelined", NONE);
          Ops.call(p, "set", SS, scratch, "x");
          Ops.call(p, "close", NONE);
        }
      } catch (IllegalStateException expected) {
        // the application gave up on it
      }
      log("abandon " + how);
    }

    private void reopen() {
      int i = random.nextInt(plain.size());
      plain.remove(i).close();
      plain.add(new Jedis(host, port));
      log("reopen");
    }
  }
}
