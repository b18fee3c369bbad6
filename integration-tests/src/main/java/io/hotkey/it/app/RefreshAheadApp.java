package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.RefreshAheadResults;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A hot key read without pause by four threads, each on a connection of its own, for {@code
 * --seconds} once the agent serves it. Reports the reads of it that went to Redis meanwhile ({@link
 * RefreshAheadResults#MISSES}) and those of them that were refreshes ahead of expiry ({@link
 * RefreshAheadResults#REFRESHES}): with {@code hotkey.cache.refresh-ahead} they are the same, as no
 * read ever finds the entry expired. Usage: {@code --client jedis|lettuce --redis host:port --key k
 * --seconds s}.
 */
public final class RefreshAheadApp {
  private static final int READERS = 4;

  private RefreshAheadApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    String host = a.host();
    int port = a.port();
    String key = a.key();
    long seconds = a.seconds();
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          List<Supplier<String>> readers = new ArrayList<>();
          for (int i = 0; i < READERS; i++) {
            readers.add(
                a.lettuce()
                    ? LettuceGets.open(host, port, key, closeables)
                    : JedisGets.open(host, port, key, closeables));
          }
          try {
            // every connection's entry filled (Lettuce keeps one per connection)
            Child.warmUp(
                RefreshAheadResults.WARMUP,
                List.of(key),
                () -> readers.forEach(reader -> Child.reading(reader).run()),
                15_000,
                3_000);
            long misses = Child.counter("CacheMisses");
            long refreshes = Child.counter("CacheRefreshes");
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (Supplier<String> reader : readers) {
              Thread t =
                  new Thread(
                      () -> {
                        while (System.nanoTime() < end) {
                          Object unused = reader.get();
                        }
                      });
              threads.add(t);
              t.start();
            }
            for (Thread t : threads) {
              t.join();
            }
            result(RefreshAheadResults.MISSES, Child.counter("CacheMisses") - misses);
            result(RefreshAheadResults.REFRESHES, Child.counter("CacheRefreshes") - refreshes);
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }
}
