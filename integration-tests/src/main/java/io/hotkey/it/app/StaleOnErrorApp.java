package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.StaleOnErrorResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Serving a hot key while Redis is gone: reads the key until the agent serves it, then asks the
 * test to stop or hang Redis ({@code SYNC redis-gone}) and keeps reading every 5 ms for {@code
 * --seconds}. Reports the answers given after that as {@link StaleOnErrorResults}: how many carried
 * the last value and when the last one came, how many failed and when the first failure came, and
 * any other value. With {@code --cold k2}, first reads that key, which is not hot, and reports how
 * it failed. Usage: {@code --client jedis|lettuce --redis host:port --key k --seconds s [--api
 * sync|async|reactive] [--cold k2]}; Lettuce reads time out after 500 ms.
 */
public final class StaleOnErrorApp {
  private StaleOnErrorApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    String host = a.host();
    int port = a.port();
    String key = a.key();
    long seconds = a.seconds();
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          // a short command timeout: without serve-stale a Lettuce read waits for it while Redis
          // is gone
          Function<String, Supplier<String>> reads =
              a.lettuce()
                  ? LettuceGets.open(
                      host, port, closeables, Duration.ofMillis(500), a.get("api", "sync"))
                  : k -> JedisGets.open(host, port, k, closeables);
          Supplier<String> reader = reads.apply(key);
          try {
            String value = reader.get();
            Child.warmUp(
                StaleOnErrorResults.WARMUP, List.of(key), Child.reading(reader), 15_000, 3_000);
            sync("redis-gone");
            long start = System.nanoTime();
            if (a.has("cold")) {
              result(StaleOnErrorResults.COLD_FAILURE, failureOf(reads.apply(a.get("cold"))));
            }
            readWhileDown(reader, value, start, seconds);
          } finally {
            for (AutoCloseable c : closeables) {
              try {
                c.close();
              } catch (Exception e) {
                // Redis is gone: closing may fail
              }
            }
          }
        },
        true);
  }

  private static String failureOf(Supplier<String> read) {
    try {
      return "none, answered " + read.get();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName();
    }
  }

  private static void readWhileDown(Supplier<String> reader, String value, long start, long seconds)
      throws InterruptedException {
    long stale = 0;
    long failures = 0;
    long wrong = 0;
    long lastStale = -1;
    long firstFailure = -1;
    while (System.nanoTime() - start < seconds * 1_000_000_000L) {
      long at = (System.nanoTime() - start) / 1_000_000;
      try {
        String got = reader.get();
        if (value.equals(got)) {
          stale++;
          lastStale = at;
        } else {
          wrong++;
        }
      } catch (RuntimeException e) {
        failures++;
        if (firstFailure < 0) {
          firstFailure = at;
        }
      }
      Thread.sleep(5);
    }
    result(StaleOnErrorResults.STALE, stale);
    result(StaleOnErrorResults.LAST_STALE_AFTER_MS, lastStale);
    result(StaleOnErrorResults.FAILURES, failures);
    result(StaleOnErrorResults.FIRST_FAILURE_AFTER_MS, firstFailure);
    result(StaleOnErrorResults.WRONG, wrong);
    result(StaleOnErrorResults.STALE_SERVED, Child.counter("CacheStaleServed"));
  }
}
