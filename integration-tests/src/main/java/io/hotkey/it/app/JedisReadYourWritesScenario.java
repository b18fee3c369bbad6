package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.ReadYourWritesResults;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Transaction;

/**
 * The read-your-writes scenario of {@link JedisScenarioApp}: once a write has returned, no thread
 * of the JVM reads an older value.
 */
final class JedisReadYourWritesScenario {
  private JedisReadYourWritesScenario() {}

  static void run(String host, int port, String key, long millis, int readers) throws Exception {
    redis.clients.jedis.JedisPoolConfig cfg = new redis.clients.jedis.JedisPoolConfig();
    cfg.setMaxTotal(readers + 4);
    try (JedisPool pool = new JedisPool(cfg, host, port)) {
      try (Jedis j = pool.getResource()) {
        j.set(key, "0");
        Child.warmUp(ReadYourWritesResults.WARMUP, List.of(key), () -> j.get(key), 8000, 3000);
      }
      AtomicLong lastReturned = new AtomicLong(0);
      AtomicLong violations = new AtomicLong();
      // by the path of the write that was not seen: 0 SET, 1 pipelined SET, 2 MULTI/EXEC SET, 3
      // INCR
      java.util.concurrent.atomic.AtomicLongArray byPath =
          new java.util.concurrent.atomic.AtomicLongArray(4);
      AtomicLong reads = new AtomicLong();
      AtomicLong writes = new AtomicLong();
      List<String> examples = java.util.Collections.synchronizedList(new ArrayList<>());
      sync("ryw");
      long deadline = System.nanoTime() + millis * 1_000_000;
      Thread writer =
          new Thread(
              () -> {
                try (Jedis w = pool.getResource()) {
                  long i = 0;
                  while (System.nanoTime() < deadline) {
                    // bursts of writes (races with fills), then quiet spells (the cache serves)
                    for (int b = 0; b < 20; b++) {
                      i++;
                      // every write path leaves the value i: SET, pipelined SET, MULTI/EXEC SET,
                      // INCR
                      switch ((int) (i % 4)) {
                        case 0 -> w.set(key, Long.toString(i));
                        case 1 -> {
                          Pipeline p = w.pipelined();
                          p.set(key, Long.toString(i));
                          p.sync();
                          p.close();
                        }
                        case 2 -> {
                          Transaction t = w.multi();
                          t.set(key, Long.toString(i));
                          t.exec();
                        }
                        default -> Ops.incr(w, key);
                      }
                      lastReturned.set(i);
                      writes.incrementAndGet();
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
                  }
                }
              },
              "writer");
      List<Thread> rt = new ArrayList<>();
      for (int r = 0; r < readers; r++) {
        final boolean borrowEachTime = r == 0;
        Thread t =
            new Thread(
                () -> {
                  Jedis held = borrowEachTime ? null : pool.getResource();
                  try {
                    while (System.nanoTime() < deadline) {
                      long floor = lastReturned.get();
                      String v;
                      if (held != null) {
                        v = held.get(key);
                      } else {
                        try (Jedis b = pool.getResource()) {
                          v = b.get(key);
                        }
                      }
                      reads.incrementAndGet();
                      long read;
                      try {
                        read = Long.parseLong(v);
                      } catch (RuntimeException e) {
                        read = Long.MIN_VALUE;
                      }
                      if (read < floor) {
                        violations.incrementAndGet();
                        byPath.incrementAndGet((int) (floor % 4));
                        if (examples.size() < 5) {
                          examples.add("lastReturnedWrite=" + floor + " read=" + v);
                        }
                      }
                    }
                  } finally {
                    if (held != null) {
                      held.close();
                    }
                  }
                },
                "reader-" + r);
        rt.add(t);
      }
      writer.start();
      rt.forEach(Thread::start);
      writer.join();
      for (Thread t : rt) {
        t.join();
      }
      sync("ryw-done");
      result(ReadYourWritesResults.READS, reads.get());
      result(ReadYourWritesResults.WRITES, writes.get());
      result(ReadYourWritesResults.VIOLATIONS, violations.get());
      result(ReadYourWritesResults.EXAMPLES, examples);
      result(
          ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH,
          "set="
              + byPath.get(0)
              + " pipeline="
              + byPath.get(1)
              + " multi="
              + byPath.get(2)
              + " incr="
              + byPath.get(3));
      try (Jedis j = pool.getResource()) {
        result(ReadYourWritesResults.FINAL, j.get(key));
      }
      result(ReadYourWritesResults.LAST_RETURNED, lastReturned.get());
      Child.reportJmx(ReadYourWritesResults.JMX);
    }
  }
}
