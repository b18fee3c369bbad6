package io.hotkey.agent.report;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.metrics.AgentMeters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Once a second, on a daemon thread of its own: the counters' change since the last second (so
 * reports can say "per second") and the top keys' rates, kept for the last five minutes (the live
 * page's chart). It runs only once someone looks (the HTTP endpoint, or a first {@code status}), so
 * an agent nobody watches has no such thread.
 */
public final class LiveSampler {
  static final int HISTORY_SECONDS = 300;
  static final int KEYS_PER_POINT = 10;

  private final AgentMeters meters;
  private final ArrayDeque<HistoryPoint> history = new ArrayDeque<>(HISTORY_SECONDS);
  private ScheduledExecutorService scheduler;
  private Counters previous;
  private CounterRates rates;

  LiveSampler(AgentMeters meters) {
    this.meters = meters;
  }

  /** Starts sampling if it has not started yet; takes the first sample at once. */
  synchronized void ensureRunning() {
    if (scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "hotkey-live");
              thread.setDaemon(true);
              return thread;
            });
    // sampleGuarded never throws; the task ends with the scheduler
    Future<?> unused = scheduler.scheduleAtFixedRate(this::sampleGuarded, 0, 1, TimeUnit.SECONDS);
  }

  /** The counters' rates over the last second; null until two samples were taken. */
  synchronized CounterRates rates() {
    return rates;
  }

  /** Up to five minutes of the top keys' rates, one point a second, oldest first. */
  synchronized List<HistoryPoint> history() {
    return new ArrayList<>(history);
  }

  private void sampleGuarded() {
    try {
      sample(System.nanoTime(), System.currentTimeMillis());
    } catch (RuntimeException e) {
      // a scheduled task that throws is never run again; one bad second must not end the page
      AgentLog.warn("live figures not sampled this second: " + e);
    }
  }

  synchronized void sample(long nanos, long millis) {
    Counters now = Counters.read(meters, nanos);
    if (previous != null && now.nanos > previous.nanos) {
      rates = new CounterRates(previous, now);
    }
    previous = now;
    List<KeyRate> hot = meters.hotKeyRates();
    List<HistoryPoint.KeyPoint> keys = new ArrayList<>(Math.min(hot.size(), KEYS_PER_POINT));
    for (KeyRate key : hot.subList(0, Math.min(hot.size(), KEYS_PER_POINT))) {
      keys.add(new HistoryPoint.KeyPoint(AgentLog.printable(key.key()), key.ratePerSecond()));
    }
    if (history.size() == HISTORY_SECONDS) {
      history.removeFirst();
    }
    history.addLast(new HistoryPoint(millis, keys));
  }

  /** The cumulative counters at one instant. */
  static final class Counters {
    final long nanos;
    final long reads;
    final long writes;
    final long hits;
    final long misses;

    private Counters(long nanos, long reads, long writes, long hits, long misses) {
      this.nanos = nanos;
      this.reads = reads;
      this.writes = writes;
      this.hits = hits;
      this.misses = misses;
    }

    static Counters read(AgentMeters meters, long nanos) {
      return new Counters(
          nanos,
          meters.readCommands(),
          meters.writeCommands(),
          meters.cacheHits(),
          meters.cacheMisses());
    }
  }

  /** Per-second rates between two samples. */
  static final class CounterRates {
    final double readsPerSecond;
    final double writesPerSecond;
    final double hitsPerSecond;
    final double missesPerSecond;

    CounterRates(Counters from, Counters to) {
      double seconds = (to.nanos - from.nanos) / 1e9;
      readsPerSecond = (to.reads - from.reads) / seconds;
      writesPerSecond = (to.writes - from.writes) / seconds;
      hitsPerSecond = (to.hits - from.hits) / seconds;
      missesPerSecond = (to.misses - from.misses) / seconds;
    }
  }

  /** The top keys' rates at one second. */
  static final class HistoryPoint {
    final long timeMillis;
    final List<KeyPoint> keys;

    HistoryPoint(long timeMillis, List<KeyPoint> keys) {
      this.timeMillis = timeMillis;
      this.keys = keys;
    }

    static final class KeyPoint {
      final String key;
      final double rate;

      KeyPoint(String key, double rate) {
        this.key = key;
        this.rate = rate;
      }
    }
  }
}
