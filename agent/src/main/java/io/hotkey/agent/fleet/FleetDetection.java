package io.hotkey.agent.fleet;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.HotKeyRegistry.FleetHotKey;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fleet-wide hot keys ({@code hotkey.detect.fleet-threshold}): once per detection window, on its
 * own daemon thread {@code hotkey-fleet}, this instance adds the keys it counted in the window just
 * ended to the {@link FleetAggregate} in Redis and hands the keys whose summed rate reached the
 * threshold to the {@link HotKeyRegistry}, which serves them as it serves its own hot keys. A key
 * read at 1/100 of the threshold on each of 100 instances is thus hot on every one of them within
 * two windows. Redis down or slow costs only this thread: the fleet's keys then stay as they were
 * until an exchange succeeds again, and the application's own commands never wait for it.
 */
public final class FleetDetection implements AutoCloseable {
  /** Most keys one instance reports per window, and most fleet-hot keys read back. */
  static final int MAX_KEYS = 100;

  /**
   * A key is reported when this instance alone saw a thousandth of the fleet threshold: enough for
   * a fleet of a thousand instances sharing a key evenly.
   */
  static final long INSTANCES_ONE_KEY_MAY_SPREAD_OVER = 1000;

  private final HotKeyDetector detector;
  private final HotKeyRegistry registry;
  private final RespClient client;
  private final String namespace;
  private volatile FleetAggregate aggregate;
  private final long windowMillis;
  private volatile double reportFloorPerSecond;
  private final AgentErrors errors;
  private final LongAdder exchanges = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final Thread thread;
  private volatile boolean closed;
  private boolean nextReports = true;

  public FleetDetection(
      HotKeyDetector detector,
      HotKeyRegistry registry,
      RedisEndpoint server,
      String namespace,
      long thresholdPerSecond,
      AgentErrors errors) {
    this.detector = detector;
    this.registry = registry;
    this.windowMillis = detector.settings().window().toMillis();
    this.namespace = namespace;
    setThreshold(thresholdPerSecond);
    int timeout = (int) Math.max(200, Math.min(2_000, windowMillis / 2));
    this.client = new RespClient(server, timeout, timeout, 1, 1_000);
    this.errors = errors;
    this.thread = new Thread(this::run, "hotkey-fleet");
    thread.setDaemon(true);
  }

  /** The fleet threshold from the next exchange on (a reloaded configuration). */
  public void setThreshold(long thresholdPerSecond) {
    aggregate =
        new FleetAggregate(
            namespace, Duration.ofMillis(windowMillis), thresholdPerSecond, MAX_KEYS);
    reportFloorPerSecond =
        Math.max(
            1.0 / windowMillis * 1000,
            (double) thresholdPerSecond / INSTANCES_ONE_KEY_MAY_SPREAD_OVER);
  }

  public void start() {
    thread.start();
  }

  private void run() {
    long sleepMillis = windowMillis;
    while (!closed) {
      try {
        Thread.sleep(sleepMillis);
      } catch (InterruptedException e) {
        return;
      }
      sleepMillis = exchangeOnce(nextReports);
    }
  }

  /**
   * One exchange: just after a window ends this instance reports it and reads what the fleet has
   * summed so far; in the middle of the next window it reads again, once every instance has
   * reported, so that all of them promote a key within the window after the one it got hot in.
   * Returns how long to wait for the next exchange.
   *
   * @param report whether to add this instance's counts (else only read)
   */
  long exchangeOnce(boolean report) {
    try {
      FleetAggregate.Exchange exchange =
          aggregate.exchange(client, report ? localCounts() : List.of());
      exchanges.increment();
      List<FleetHotKey> hot = new ArrayList<>();
      for (KeyCount key : exchange.hot) {
        hot.add(new FleetHotKey(key.key(), key.count() * 1000.0 / windowMillis));
      }
      registry.onFleetHotKeys(hot);
      // by Redis' clock: early in a window the next exchange reads at its middle; past the middle
      // it reports just after the window ends, so no window is ever reported twice
      nextReports = exchange.offsetMillis >= windowMillis / 2;
      long next = nextReports ? windowMillis + Math.min(50, windowMillis / 20) : windowMillis / 2;
      return Math.max(1, next - exchange.offsetMillis);
    } catch (IOException e) {
      if (failures.sum() == 0) {
        AgentLog.warn(
            "fleet hot-key exchange failed, fleet hot keys stay as they were until it works: "
                + e.getMessage());
      }
      failures.increment();
      return windowMillis / 2;
    } catch (RuntimeException | Error e) {
      errors.record("fleet exchange", e);
      return windowMillis / 2;
    }
  }

  /** This instance's counts over the detector's window, the keys worth the fleet's attention. */
  private List<KeyCount> localCounts() {
    List<KeyCount> counts = new ArrayList<>();
    for (KeyRate key : detector.topKeys(MAX_KEYS)) {
      if (key.truncated() || key.ratePerSecond() < reportFloorPerSecond) {
        continue;
      }
      counts.add(new KeyCount(key.key(), Math.round(key.ratePerSecond() * windowMillis / 1000.0)));
    }
    return counts;
  }

  /** Exchanges that reached Redis. */
  public long exchanges() {
    return exchanges.sum();
  }

  /** Exchanges that failed (Redis down, slow or refusing the script). */
  public long failures() {
    return failures.sum();
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    client.close();
  }
}
