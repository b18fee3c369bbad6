package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.RedisRestartResults;
import io.hotkey.it.app.results.StalenessResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A hot key served under tracking while the Redis server restarts. As in {@link StalenessApp}, two
 * reader threads GET the key through the client with the agent while a {@link StepWriter} around
 * the agent SETs it to the next step every {@code --write-every-ms}, and a {@link StalenessMeter}
 * measures every answer against the writer's acknowledgements. After {@code --before-ms} of that,
 * {@code SYNC redis-restarted} asks the test to stop Redis and start it again with its data; the
 * test answers once Redis answers PING. Readers and writer go on throughout, and the reads and
 * writes that fail while Redis is gone are counted: a Jedis reader then reopens its connection, as
 * a pool would; Lettuce reconnects by itself, and its reads time out after 500 ms meanwhile. Once
 * Redis is back the app waits (30 s at most each) for the agent to track again ({@code
 * retrackedAfterMs}) and to answer locally again ({@code servedAgainAfterMs}), both counted from
 * the test's answer, then goes on for {@code --after-ms}. Reports the meter's figures, local hits
 * before the restart and after Redis was back, failed SETs, the tracking connections the agent lost
 * ({@code trackingLost}) and its tracking state at the end. Usage: {@code --client jedis|lettuce
 * --redis host:port --key k --write-every-ms n --before-ms n --after-ms n}.
 */
public final class RedisRestartApp {
  private static final int READERS = 2;

  /** Up to 10,000 reads a second per reader: enough to see any stale answer, sparing the CPU. */
  private static final long READ_PAUSE_NANOS = 100_000;

  private static final int LAST_STEP = 200_000;
  private static final long RECOVERY_TIMEOUT_MILLIS = 30_000;
  private static final long SERVED_AGAIN_HITS = 100;

  private RedisRestartApp() {}

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    String host = a.host();
    int port = a.port();
    String key = a.key();
    long writeEveryMs = a.number("write-every-ms", 5);
    long beforeMs = a.number("before-ms", 1000);
    long afterMs = a.number("after-ms", 2000);
    boolean lettuce = a.lettuce();
    Child.runAndExit(
        () -> {
          List<Supplier<String>> readers = new ArrayList<>();
          List<AutoCloseable> closeables = new ArrayList<>();
          try (StepWriter writer = new StepWriter(host, port, key)) {
            for (int r = 0; r < READERS; r++) {
              readers.add(
                  lettuce
                      ? LettuceGets.open(host, port, key, closeables, Duration.ofMillis(500))
                      : JedisGets.reopening(host, port, key, closeables));
            }
            writer.set(0);
            StalenessApp.warmUp(readers.get(0), key, 20);
            StalenessMeter meter = new StalenessMeter(LAST_STEP, -1);
            meter.acknowledged(0);
            long hitsAtStart = Child.counter("CacheHits");
            meter.start(readers, READ_PAUSE_NANOS);
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread writerThread =
                new Thread(
                    () -> {
                      try {
                        for (int step = 1; writing.get() && step <= LAST_STEP; step++) {
                          Thread.sleep(writeEveryMs);
                          meter.sending(step);
                          writer.set(step);
                          meter.acknowledged(step);
                        }
                      } catch (InterruptedException | RuntimeException e) {
                        writerFailure.set(e);
                      }
                    },
                    "writer");
            writerThread.start();

            Thread.sleep(beforeMs);
            long hitsAtStop = Child.counter("CacheHits");
            result(RedisRestartResults.HITS_BEFORE_RESTART, hitsAtStop - hitsAtStart);
            sync("redis-restarted");
            long back = System.nanoTime();
            long hitsAtBack = Child.counter("CacheHits");
            result(
                StalenessResults.RETRACKED_AFTER_MS,
                Child.millisUntilTracking(back, RECOVERY_TIMEOUT_MILLIS));
            result(RedisRestartResults.SERVED_AGAIN_AFTER_MS, millisUntilServed(back, hitsAtBack));
            Thread.sleep(afterMs);

            writing.set(false);
            writerThread.join();
            meter.stopAndReport();
            long hitsAtEnd = Child.counter("CacheHits");
            result(StalenessResults.HITS, hitsAtEnd - hitsAtStart);
            result(RedisRestartResults.HITS_AFTER_RESTART, hitsAtEnd - hitsAtBack);
            result(RedisRestartResults.WRITE_FAILURES, writer.failures());
            if (writerFailure.get() != null) {
              throw new IllegalStateException("the writer stopped", writerFailure.get());
            }
            result(
                RedisRestartResults.TRACKING_LOST,
                Child.jmxMap("CacheFlushes").get("tracking_lost") instanceof Long lost ? lost : 0L);
            result(StalenessResults.TRACKING_SERVERS, Child.jmxTexts("TrackingServers"));
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  /**
   * Milliseconds from {@code sinceNanos} until the agent answered {@link #SERVED_AGAIN_HITS} reads
   * locally after {@code hitsBefore}, or -1 if it did not within the recovery timeout.
   */
  private static long millisUntilServed(long sinceNanos, long hitsBefore)
      throws InterruptedException {
    while (System.nanoTime() - sinceNanos < RECOVERY_TIMEOUT_MILLIS * 1_000_000) {
      if (Child.counter("CacheHits") - hitsBefore >= SERVED_AGAIN_HITS) {
        return (System.nanoTime() - sinceNanos) / 1_000_000;
      }
      Thread.sleep(5);
    }
    return -1;
  }
}
