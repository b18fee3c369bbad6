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
 *
 * <p>It exchanges only while the threshold is above 0, which a reload may change either way: a
 * threshold set starts the exchanges, 0 stops them and demotes every fleet-hot key at once.
 */
public final class FleetDetection {
  /** Most keys one instance reports per window, and most fleet-hot keys read back. */
  static final int MAX_KEYS = 100;

  /**
   * A key is reported when this instance alone saw a thousandth of the fleet threshold: enough for
   * a fleet of a thousand instances sharing a key evenly.
   */
  static final long INSTANCES_ONE_KEY_MAY_SPREAD_OVER = 1000;

  private final HotKeyDetector detector;
  private final HotKeyRegistry registry;
  private final RedisEndpoint server;
  private final String namespace;
  private final long windowMillis;
  private final AgentErrors errors;
  private final LongAdder exchanges = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private volatile FleetAggregate aggregate;
  private volatile double reportFloorPerSecond;

  /** The exchanges running now; null while the threshold is 0. Guarded by this. */
  private Exchanges running;

  /** Off until {@link #setThreshold} gives it a threshold above 0. */
  public FleetDetection(
      HotKeyDetector detector,
      HotKeyRegistry registry,
      RedisEndpoint server,
      String namespace,
      AgentErrors errors) {
    this.detector = detector;
    this.registry = registry;
    this.server = server;
    this.windowMillis = detector.settings().window().toMillis();
    this.namespace = namespace;
    this.errors = errors;
  }

  /**
   * The fleet threshold from the next exchange on (at start, or a reloaded configuration). Above 0
   * it starts the exchanges if they were off; 0 stops them and demotes the fleet's hot keys at
   * once: without exchanges nothing would ever tell this instance that they cooled.
   */
  public synchronized void setThreshold(long thresholdPerSecond) {
    if (thresholdPerSecond <= 0) {
      if (running != null) {
        running.stop();
        running = null;
        registry.onFleetHotKeys(List.of());
      }
      return;
    }
    aggregate =
        new FleetAggregate(
            namespace, Duration.ofMillis(windowMillis), thresholdPerSecond, MAX_KEYS);
    reportFloorPerSecond =
        Math.max(
            1.0 / windowMillis * 1000,
            (double) thresholdPerSecond / INSTANCES_ONE_KEY_MAY_SPREAD_OVER);
    if (running == null) {
      running = new Exchanges();
      running.start();
    }
  }

  /** The fleet's hot keys, unless {@code from} was stopped while it exchanged. */
  private synchronized void publish(Exchanges from, List<FleetHotKey> hot) {
    if (running == from) {
      registry.onFleetHotKeys(hot);
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

  /**
   * One run of exchanges, from a threshold set to the next 0: its own thread and connection, so a
   * run still finishing an exchange never shares either with the run that follows it.
   */
  private final class Exchanges {
    private final RespClient client;
    private final Thread thread;
    private volatile boolean stopped;
    private boolean nextReports = true;

    Exchanges() {
      int timeout = (int) Math.max(200, Math.min(2_000, windowMillis / 2));
      this.client = new RespClient(server, timeout, timeout, 1, 1_000);
      this.thread = new Thread(this::run, "hotkey-fleet");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() {
      stopped = true;
      thread.interrupt();
    }

    private void run() {
      try {
        long sleepMillis = windowMillis;
        while (!stopped) {
          Thread.sleep(sleepMillis);
          sleepMillis = exchangeOnce(nextReports);
        }
      } catch (InterruptedException e) {
        // stopped: the threshold went to 0
      } finally {
        client.close();
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
    private long exchangeOnce(boolean report) {
      try {
        FleetAggregate.Exchange exchange =
            aggregate.exchange(client, report ? localCounts() : List.of());
        exchanges.increment();
        List<FleetHotKey> hot = new ArrayList<>();
        for (KeyCount key : exchange.hot) {
          hot.add(new FleetHotKey(key.key(), key.count() * 1000.0 / windowMillis));
        }
        publish(this, hot);
        // by Redis' clock: early in a window the next exchange reads at its middle; past the
        // middle it reports just after the window ends, so no window is ever reported twice
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
  }
}
