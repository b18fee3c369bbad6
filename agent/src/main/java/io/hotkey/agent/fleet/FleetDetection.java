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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fleet-wide hot keys ({@code hotkey.detect.fleet-threshold}): once per detection window, on its
 * own daemon thread {@code hotkey-fleet}, this instance adds the keys it counted to the {@link
 * FleetAggregate} in Redis, one call per {@link FleetShards shard} (one per Cluster master), and
 * hands the keys whose summed rate reached the threshold to the {@link HotKeyRegistry}, which
 * serves them as it serves its own hot keys. A key read at 1/100 of the threshold on each of 100
 * instances is thus hot on every one of them within two windows. Redis down or slow costs only this
 * thread: the fleet's keys then stay as they were until an exchange succeeds again, and the
 * application's own commands never wait for it. Where Redis is, {@link FleetRedis} says; while it
 * knows none (or the application uses several), fleet detection is off and serves nothing.
 *
 * <p>Each instance exchanges at its own random point of the first half of every window, by Redis'
 * clock, so that a large fleet's calls are spread over half a window and all of them have reported
 * a window before the next one is half over. It reports only keys whose rate here could make them
 * fleet-hot given how many instances reported a window ago: at least half the threshold divided by
 * that many, and at most {@link #MAX_KEYS}.
 *
 * <p>It exchanges only while the threshold is above 0, which a reload may change either way: a
 * threshold set starts the exchanges, 0 stops them and demotes every fleet-hot key at once.
 */
public final class FleetDetection {
  /** Most keys one instance reports per window, and most fleet-hot keys read back per shard. */
  static final int MAX_KEYS = 100;

  /**
   * Before the fleet's size is known, a key is reported when this instance alone saw a thousandth
   * of the fleet threshold.
   */
  static final long INSTANCES_ASSUMED_AT_FIRST = 1000;

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
    aggregate = new FleetAggregate(Duration.ofMillis(windowMillis), thresholdPerSecond, MAX_KEYS);
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

  /**
   * This instance's counts over the detector's window, the keys that could make the fleet's sum
   * reach the threshold: with {@code instances} reporting, a key reaches it only through instances
   * that see at least its share, and half of that share keeps a key most instances see a little
   * less of.
   *
   * @param instances how many instances reported a window ago; 0: not known yet
   */
  private List<KeyCount> localCounts(long instances) {
    double floorPerSecond =
        Math.max(
            1000.0 / windowMillis,
            instances > 0
                ? thresholdPerSecond / (2.0 * instances)
                : (double) thresholdPerSecond / INSTANCES_ASSUMED_AT_FIRST);
    List<KeyCount> counts = new ArrayList<>();
    for (KeyRate key : detector.topKeys(MAX_KEYS)) {
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

    /** Per shard, the last window this instance reported into it. */
    private final Map<String, Long> lastReported = new HashMap<>();

    private volatile boolean stopped;
    private RedisEndpoint server;
    private RespClient client;
    private FleetShards shards;
    private long instances;
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
          if (publishedAny) {
            publish(this, List.of());
            publishedAny = false;
          }
          closeClient();
          return windowMillis;
        }
        if (current != server) {
          closeClient();
          server = current;
          client = new RespClient(server, timeoutMillis, timeoutMillis, 1, 1_000);
        }
        if (shards == null) {
          shards = FleetShards.of(client, namespace);
        }
        return exchangeOnce();
      } catch (IOException e) {
        if (failures.sum() == 0) {
          AgentLog.warn(
              "fleet hot-key exchange with "
                  + (server == null ? where : server)
                  + " failed, fleet hot keys stay as they were until it works: "
                  + e.getMessage());
        }
        failures.increment();
        // the Cluster's masters may have changed: ask again
        shards = null;
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
      List<List<KeyCount>> byShard = new ArrayList<>();
      for (int s = 0; s < shards.count(); s++) {
        byShard.add(new ArrayList<>());
      }
      for (KeyCount count : localCounts(instances)) {
        byShard.get(shards.of(count.key())).add(count);
      }
      Map<String, FleetHotKey> hot = new LinkedHashMap<>();
      long offsetMillis = -1;
      long reporters = 0;
      FleetAggregate current = aggregate;
      for (int s = 0; s < shards.count(); s++) {
        String shard = new String(shards.base(s), StandardCharsets.UTF_8);
        FleetAggregate.Exchange exchange =
            current.exchange(
                client, shards.base(s), lastReported.getOrDefault(shard, -1L), byShard.get(s));
        lastReported.put(shard, exchange.reported);
        reporters = Math.max(reporters, exchange.reporters);
        if (offsetMillis < 0) {
          offsetMillis = exchange.offsetMillis;
        }
        for (KeyCount key : exchange.hot) {
          hot.put(
              new String(key.key(), StandardCharsets.ISO_8859_1),
              new FleetHotKey(key.key(), key.count() * 1000.0 / windowMillis));
        }
      }
      exchanges.increment();
      instances = reporters;
      publish(this, new ArrayList<>(hot.values()));
      publishedAny = true;
      return Math.max(1, windowMillis - offsetMillis + phaseMillis);
    }

    private void closeClient() {
      if (client != null) {
        client.close();
        client = null;
      }
      server = null;
      shards = null;
    }
  }
}
