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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fleet-wide hot keys ({@code hotkey.detect.fleet-threshold}): once per detection window, on its
 * own daemon thread {@code hotkey-fleet}, this instance adds the keys it counted to the {@link
 * FleetAggregate} in Redis, one call per {@link FleetShards shard} (one per Cluster master), and
 * hands the keys whose summed rate reached the threshold to the {@link HotKeyRegistry}, which
 * serves them as it serves its own hot keys ({@link FleetExchange} says which keys it reports). A
 * key read at 1/100 of the threshold on each of 100 instances is thus hot on every one of them
 * within two windows, and stays hot until the fleet's sum has stayed below the threshold for the
 * detector's cool-down ({@link FleetCoolDown}). Redis down or slow costs only this thread: the
 * fleet's keys then stay as they were until an exchange succeeds again, and the application's own
 * commands never wait for it. Where Redis is, {@link FleetRedis} says; while it knows none (or the
 * application uses several), fleet detection is off and serves nothing.
 *
 * <p>Each instance exchanges at its own random point of the first half of every window, by Redis'
 * clock, so that a large fleet's calls are spread over half a window and all of them have reported
 * a window before the next one is half over.
 *
 * <p>It exchanges only while the threshold is above 0, which a reload may change either way: a
 * threshold set starts the exchanges, 0 stops them and demotes every fleet-hot key at once.
 */
public final class FleetDetection {
  private final HotKeyDetector detector;
  private final HotKeyRegistry registry;
  private final FleetRedis where;
  private final String namespace;
  private final long windowMillis;
  private final AgentErrors errors;
  private final LongAdder exchanges = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private volatile FleetAggregate aggregate;
  private volatile long thresholdPerSecond;

  /** The exchanges running now; null while the threshold is 0. Guarded by this. */
  private Exchanges running;

  /** Off until {@link #setThreshold} gives it a threshold above 0. */
  public FleetDetection(
      HotKeyDetector detector,
      HotKeyRegistry registry,
      FleetRedis where,
      String namespace,
      AgentErrors errors) {
    this.detector = detector;
    this.registry = registry;
    this.where = where;
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
            Duration.ofMillis(windowMillis), thresholdPerSecond, FleetExchange.MAX_KEYS);
    this.thresholdPerSecond = thresholdPerSecond;
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

  /** This instance's counts over the detector's window at or above {@code floorPerSecond}. */
  private List<KeyCount> localCounts(double floorPerSecond) {
    List<KeyCount> counts = new ArrayList<>();
    for (KeyRate key : detector.topKeys(FleetExchange.MAX_KEYS)) {
      if (key.truncated() || key.ratePerSecond() < floorPerSecond) {
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
    private final Thread thread;
    private final int timeoutMillis = (int) Math.max(200, Math.min(2_000, windowMillis / 2));

    /** Where in each window, by Redis' clock, this instance exchanges. */
    private final long phaseMillis =
        windowMillis / 20
            + ThreadLocalRandom.current().nextLong(Math.max(1, windowMillis * 9 / 20));

    private volatile boolean stopped;
    private RedisEndpoint server;
    private RespClient client;
    private FleetExchange exchange;
    private final FleetCoolDown coolDown = new FleetCoolDown();
    private boolean publishedAny;

    Exchanges() {
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
          sleepMillis = step();
        }
      } catch (InterruptedException e) {
        // stopped: the threshold went to 0
      } finally {
        closeClient();
      }
    }

    /** Finds the fleet's Redis, exchanges with it; returns how long to wait for the next step. */
    private long step() {
      try {
        RedisEndpoint current = where.current();
        if (current == null) {
          // nowhere to count (yet, or several deployments): what was fleet-hot is no longer known
          coolDown.clear();
          if (publishedAny) {
            publish(this, List.of());
            publishedAny = false;
          }
          closeClient();
          return windowMillis;
        }
        if (current != server) {
          // another deployment: what was hot on the one before says nothing here
          coolDown.clear();
          closeClient();
          server = current;
          client = new RespClient(server, timeoutMillis, timeoutMillis, 1, 1_000);
        }
        if (exchange == null) {
          exchange = new FleetExchange(client, FleetShards.of(client, namespace));
        }
        return exchangeOnce();
      } catch (IOException e) {
        if (failures.sum() == 0) {
          AgentLog.warn(
              "fleet hot-key exchange failed, fleet hot keys stay as they were until it works: "
                  + e.getMessage());
        }
        failures.increment();
        // the Cluster's masters may have changed: ask again
        exchange = null;
        return windowMillis / 2;
      } catch (RuntimeException | Error e) {
        errors.record("fleet exchange", e);
        return windowMillis / 2;
      }
    }

    /**
     * One exchange per shard: reports the window just ended into it (once) and reads back what the
     * fleet summed so far. Returns how long to wait for this instance's point of the next window.
     */
    private long exchangeOnce() throws IOException {
      long threshold = thresholdPerSecond;
      double reportFloor = exchange.reportFloorPerSecond(threshold, windowMillis);
      FleetExchange.Result result = exchange.exchange(aggregate, localCounts(reportFloor));
      exchanges.increment();
      List<FleetHotKey> hot = new ArrayList<>();
      for (KeyCount key : result.hot) {
        hot.add(new FleetHotKey(key.key(), key.count() * 1000.0 / windowMillis, reportFloor));
      }
      publish(
          this, coolDown.next(hot, System.nanoTime(), detector.settings().coolDown().toNanos()));
      publishedAny = true;
      return Math.max(1, windowMillis - result.offsetMillis + phaseMillis);
    }

    private void closeClient() {
      if (client != null) {
        client.close();
        client = null;
      }
      server = null;
      exchange = null;
    }
  }
}
