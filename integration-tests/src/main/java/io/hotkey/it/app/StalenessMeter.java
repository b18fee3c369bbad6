package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.StalenessResults;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * How stale the answers are that reader threads get for a key which a writer around the agent sets
 * to step numbers. The writer says when it sends a step ({@link #sending}) and when Redis
 * acknowledged it ({@link #acknowledged}); a read that started at {@code s} and returned step
 * {@code j} is stale by {@code s - ack(j + 1)} when step {@code j + 1} was acknowledged before
 * {@code s}, and fresh otherwise. A step never sent is a wrong value. A read that throws (Redis
 * gone) is counted as a failure, not as an answer. Reports {@code reads}, {@code wrongValues},
 * {@code readFailures} and {@code staleness.p50Us}, {@code .p99Us}, {@code .maxUs}.
 */
final class StalenessMeter {
  private static final int HISTOGRAM_BUCKETS = 100_000;

  private final int lastStep;
  private final int nilStep;
  private final AtomicLongArray acked;
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicBoolean reading = new AtomicBoolean(true);
  private final List<Tally> tallies = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();

  /**
   * @param lastStep the highest step the writer may send
   * @param nilStep the step a nil answer stands for (the step that was a FLUSHALL), or -1: none
   */
  StalenessMeter(int lastStep, int nilStep) {
    this.lastStep = lastStep;
    this.nilStep = nilStep;
    this.acked = new AtomicLongArray(lastStep + 2);
  }

  /** Step {@code step} is about to be sent: from now on an answer may carry it. */
  void sending(int step) {
    sent.set(step);
  }

  /** Redis acknowledged step {@code step}. */
  void acknowledged(int step) {
    acked.set(step, System.nanoTime());
  }

  /**
   * Starts one thread per reader, reading until {@link #stopAndReport}, with {@code pauseNanos}
   * between reads (0: none).
   */
  void start(List<Supplier<String>> readers, long pauseNanos) {
    for (int r = 0; r < readers.size(); r++) {
      Supplier<String> reader = readers.get(r);
      Tally tally = new Tally();
      tallies.add(tally);
      Thread t =
          new Thread(
              () -> {
                while (reading.get()) {
                  long start = System.nanoTime();
                  try {
                    tally.answered(start, reader.get());
                  } catch (RuntimeException e) {
                    tally.failed(e);
                  }
                  if (pauseNanos > 0) {
                    LockSupport.parkNanos(pauseNanos);
                  }
                }
              },
              "reader-" + r);
      threads.add(t);
      t.start();
    }
  }

  /** Stops the readers and reports what they saw. */
  void stopAndReport() throws InterruptedException {
    reading.set(false);
    for (Thread t : threads) {
      t.join();
    }
    long[] all = new long[HISTOGRAM_BUCKETS];
    long total = 0;
    long wrong = 0;
    long failures = 0;
    long max = 0;
    for (Tally tally : tallies) {
      for (int b = 0; b < HISTOGRAM_BUCKETS; b++) {
        all[b] += tally.histogram[b];
      }
      total += tally.reads;
      wrong += tally.wrong;
      failures += tally.failures;
      max = Math.max(max, tally.max);
    }
    result(StalenessResults.READS, total);
    result(StalenessResults.WRONG_VALUES, wrong);
    result(StalenessResults.READ_FAILURES, failures);
    result(StalenessResults.P50_US, percentileUs(all, total, 0.50));
    result(StalenessResults.P99_US, percentileUs(all, total, 0.99));
    result(StalenessResults.MAX_US, total == 0 ? -1 : max / 1000);
  }

  /** One reader's answers, touched by its thread only until {@link #stopAndReport} joined it. */
  private final class Tally {
    /** Every answer counts, in 10 µs buckets up to 1 s (the last bucket holds anything longer). */
    final long[] histogram = new long[HISTOGRAM_BUCKETS];

    long max;
    long reads;
    long wrong;
    long failures;

    void answered(long start, String value) {
      int step = value == null ? nilStep : parseStep(value);
      if (step < 0 || step > sent.get()) {
        wrong++;
        return;
      }
      long newer = step + 1 <= lastStep ? acked.get(step + 1) : 0;
      long stale = newer != 0 && newer - start < 0 ? start - newer : 0;
      histogram[(int) Math.min(HISTOGRAM_BUCKETS - 1, stale / 10_000)]++;
      max = Math.max(max, stale);
      reads++;
    }

    void failed(RuntimeException e) {
      if (failures++ == 0) {
        System.err.println(Thread.currentThread().getName() + ": first failed read: " + e);
      }
    }
  }

  /** The step a value names, or -1 if it names none. */
  private static int parseStep(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The upper edge of the percentile's bucket in µs (0 for under 10 µs); -1 without reads. */
  private static long percentileUs(long[] histogram, long total, double p) {
    if (total == 0) {
      return -1;
    }
    long rank = (long) Math.ceil(p * total);
    long seen = 0;
    for (int b = 0; b < histogram.length; b++) {
      seen += histogram[b];
      if (seen >= rank) {
        return b == 0 ? 0 : (b + 1) * 10L;
      }
    }
    return histogram.length * 10L;
  }
}
