package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.ReadYourWritesResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * The read-your-writes scenario of {@link LettuceScenarioApp}: once a write's future has completed,
 * every thread reads the new value or a newer one.
 */
final class LettuceReadYourWritesScenario {
  private LettuceReadYourWritesScenario() {}

  /**
   * With {@code attachFirst} the JVM starts without the agent and every API is used once (so
   * Lettuce's command, argument and output classes are loaded) before the test attaches it from
   * outside: the agent then works on classes it could not extend at load. With {@code traced} the
   * client runs Lettuce's {@code MicrometerTracing} (every command wrapped and observed, as under
   * Spring Boot's actuator) and the plain SETs carry an expiry ({@code SET k v PX}), as Spring's
   * {@code RedisCache} writes a {@code @CachePut} with a time-to-live.
   */
  static void run(String address, long millis, boolean attachFirst, boolean traced)
      throws Exception {
    String key = "lt:ryw";
    ConcurrentLinkedQueue<LettuceTracingApp.RecordedSpan> spans = new ConcurrentLinkedQueue<>();
    ClientResources resources =
        traced
            ? ClientResources.builder().tracing(ObservedCommands.tracing(spans)).build()
            : ClientResources.create();
    SetArgs expiry = SetArgs.Builder.px(600_000);
    RedisClient client = RedisClient.create(resources, LettuceScenarioApp.uri(address));
    try (StatefulRedisConnection<String, String> shared = client.connect();
        StatefulRedisConnection<String, String> writerConn = client.connect();
        StatefulRedisConnection<String, String> other = client.connect()) {
      shared.sync().set(key, "0");
      if (attachFirst) {
        shared.async().set(key, "0").get(5, TimeUnit.SECONDS);
        shared.reactive().get(key).block();
        shared.sync().get(key);
        result(AttachResults.AGENT_BEFORE, Child.mbeanRegistered());
        sync("attach " + ProcessHandle.current().pid());
      }
      Child.warmUp(
          ReadYourWritesResults.WARMUP, List.of(key), () -> shared.sync().get(key), 8000, 3000);
      AtomicLong lastReturned = new AtomicLong();
      AtomicLong violations = new AtomicLong();
      AtomicLongArray byPath = new AtomicLongArray(4);
      AtomicLong reads = new AtomicLong();
      AtomicLong writes = new AtomicLong();
      List<String> examples = Collections.synchronizedList(new ArrayList<>());
      sync("ryw");
      long deadline = System.nanoTime() + millis * 1_000_000;
      Thread writer =
          new Thread(
              () -> {
                long i = 0;
                try {
                  while (System.nanoTime() < deadline) {
                    for (int burst = 0; burst < 20; burst++) {
                      i++;
                      // half the writes on the readers' own connection, half on another one
                      StatefulRedisConnection<String, String> w =
                          (i / 4) % 2 == 0 ? writerConn : shared;
                      switch ((int) (i % 4)) {
                        case 0 -> {
                          if (traced) {
                            w.sync().set(key, Long.toString(i), expiry);
                          } else {
                            w.sync().set(key, Long.toString(i));
                          }
                        }
                        case 1 -> w.async().set(key, Long.toString(i)).get(5, TimeUnit.SECONDS);
                        case 2 -> {
                          if (w == shared) {
                            w.reactive().set(key, Long.toString(i)).block();
                          } else {
                            w.sync().multi();
                            w.sync().set(key, Long.toString(i));
                            w.sync().exec();
                          }
                        }
                        default -> {
                          w.sync().set(key, Long.toString(i - 1));
                          w.sync().incr(key);
                        }
                      }
                      lastReturned.set(i);
                      writes.incrementAndGet();
                    }
                    // the observations are not what is checked here
                    spans.clear();
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              "writer");
      List<Supplier<String>> paths =
          List.of(
              () -> shared.sync().get(key),
              () -> {
                try {
                  return shared.async().get(key).get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              () -> shared.reactive().get(key).block(),
              () -> other.sync().get(key));
      List<Thread> readers = new ArrayList<>();
      for (Supplier<String> path : paths) {
        readers.add(
            new Thread(
                () -> {
                  while (System.nanoTime() < deadline) {
                    long floor = lastReturned.get();
                    String v = path.get();
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
                }));
      }
      writer.start();
      readers.forEach(Thread::start);
      writer.join();
      for (Thread t : readers) {
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
              + " async="
              + byPath.get(1)
              + " multiOrReactive="
              + byPath.get(2)
              + " incr="
              + byPath.get(3));
      result(ReadYourWritesResults.FINAL, other.sync().get(key));
      result(ReadYourWritesResults.LAST_RETURNED, lastReturned.get());
      Child.reportJmx(ReadYourWritesResults.JMX);
    } finally {
      client.shutdown();
      resources.shutdown().get(10, TimeUnit.SECONDS);
    }
  }
}
