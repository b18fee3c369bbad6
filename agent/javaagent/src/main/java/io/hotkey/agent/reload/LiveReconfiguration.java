package io.hotkey.agent.reload;

import io.hotkey.agent.cache.CaffeineNearCache;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.fleet.FleetDetection;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.report.AgentReport;
import io.hotkey.config.ConfigChange;
import io.hotkey.config.ConfigChanges;
import io.hotkey.config.ConfigKey;
import io.hotkey.config.HotkeyConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Applies a reloaded configuration's {@link ConfigChanges#LIVE live keys} to the running parts:
 * detector, registry (cache filter, write-hot rate), near cache (bound, TTL), fleet detection,
 * top-keys report, idempotency engine. Runs on the agent's scheduler thread, as the detector's tick
 * and the report do.
 */
public final class LiveReconfiguration {
  private static final Set<ConfigKey> DETECTOR =
      EnumSet.of(ConfigKey.DETECT_THRESHOLD, ConfigKey.DETECT_TOP_K, ConfigKey.DETECT_COOL_DOWN);
  private static final Set<ConfigKey> REGISTRY =
      EnumSet.of(
          ConfigKey.DETECT_THRESHOLD,
          ConfigKey.DETECT_WRITE_THRESHOLD,
          ConfigKey.CACHE_INCLUDE,
          ConfigKey.CACHE_EXCLUDE);
  private static final Set<ConfigKey> CACHE =
      EnumSet.of(ConfigKey.CACHE_TTL, ConfigKey.CACHE_MAX_BYTES);
  private static final Set<ConfigKey> IDEMPOTENCY =
      EnumSet.of(ConfigKey.IDEMPOTENCY_ROUTES, ConfigKey.IDEMPOTENCY_REQUIRE_KEY);

  /**
   * The parts a reload reaches; fleet detection is null when its Redis URI was unusable at start,
   * idempotency when it was off at start.
   */
  public static final class Parts {
    private final HotKeyDetector detector;
    private final HotKeyRegistry registry;
    private final NearCache cache;
    private final KeyVersions versions;
    private FleetDetection fleet;
    private IdempotencyEngine idempotency;
    private boolean httpServersInstrumented;
    private final AgentReport report;

    public Parts(
        HotKeyDetector detector,
        HotKeyRegistry registry,
        NearCache cache,
        KeyVersions versions,
        AgentReport report) {
      this.detector = detector;
      this.registry = registry;
      this.cache = cache;
      this.versions = versions;
      this.report = report;
    }

    public NearCache cache() {
      return cache;
    }

    public HotKeyDetector detector() {
      return detector;
    }

    public HotKeyRegistry registry() {
      return registry;
    }

    public Parts fleet(FleetDetection fleetDetection) {
      this.fleet = fleetDetection;
      return this;
    }

    /**
     * The idempotency engine, and whether routes can be added live.
     *
     * @param instrumented whether the HTTP servers were instrumented at start (idempotency routes
     *     were configured then)
     */
    public Parts idempotency(IdempotencyEngine engine, boolean instrumented) {
      this.idempotency = engine;
      this.httpServersInstrumented = instrumented;
      return this;
    }
  }

  /** A change the running agent does not apply, and why. */
  public static final class Refusal {
    private final ConfigChange change;
    private final String reason;

    Refusal(ConfigChange change, String reason) {
      this.change = change;
      this.reason = reason;
    }

    public ConfigChange change() {
      return change;
    }

    public String reason() {
      return reason;
    }
  }

  /** What one reload did: the configuration now running, what was applied and what was not. */
  public static final class Outcome {
    private final HotkeyConfig running;
    private final List<ConfigChange> applied;
    private final List<Refusal> needRestart;

    Outcome(HotkeyConfig running, List<ConfigChange> applied, List<Refusal> needRestart) {
      this.running = running;
      this.applied = applied;
      this.needRestart = needRestart;
    }

    public HotkeyConfig running() {
      return running;
    }

    public List<ConfigChange> applied() {
      return applied;
    }

    public List<Refusal> needRestart() {
      return needRestart;
    }
  }

  private final Parts parts;
  private final ScheduledExecutorService scheduler;
  private final Runnable topKeysReport;
  private ScheduledFuture<?> reportTask;

  public LiveReconfiguration(
      Parts parts, ScheduledExecutorService scheduler, Runnable topKeysReport) {
    this.parts = parts;
    this.scheduler = scheduler;
    this.topKeysReport = topKeysReport;
  }

  /** (Re)starts the periodic top-keys line; zero stops it. */
  public synchronized void scheduleReport(Duration interval) {
    if (reportTask != null) {
      reportTask.cancel(false);
      reportTask = null;
    }
    long nanos = interval.toNanos();
    if (nanos > 0) {
      reportTask = scheduler.scheduleAtFixedRate(topKeysReport, nanos, nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Applies what it can of {@code changes} (from {@code running} to {@code loaded}). */
  public Outcome apply(HotkeyConfig running, HotkeyConfig loaded, List<ConfigChange> changes) {
    Map<ConfigKey, ConfigChange> live = new EnumMap<>(ConfigKey.class);
    List<Refusal> refused = new ArrayList<>();
    for (ConfigChange change : changes) {
      String reason = refusal(change.key(), loaded);
      if (reason == null) {
        live.put(change.key(), change);
      } else {
        refused.add(new Refusal(change, reason));
      }
    }
    HotkeyConfig next = ConfigChanges.merge(running, loaded, live.keySet());
    Set<ConfigKey> applied = live.keySet();
    if (touches(applied, DETECTOR)) {
      parts.detector.retune(next.detectThreshold(), next.detectTopK(), next.detectCoolDown());
    }
    if (touches(applied, REGISTRY)) {
      for (byte[] key :
          parts.registry.reconfigure(next.cacheKeyFilter(), (double) next.detectWriteThreshold())) {
        // its entries die now: a read never gets one, even if the key is accepted again later
        parts.versions.bump(KeyHashes.hash(key));
      }
    }
    if (touches(applied, CACHE) && parts.cache instanceof CaffeineNearCache) {
      ((CaffeineNearCache) parts.cache).resize(next.cacheMaxBytes(), next.cacheTtl());
    }
    if (applied.contains(ConfigKey.DETECT_FLEET_THRESHOLD)) {
      parts.fleet.setThreshold(next.detectFleetThreshold());
    }
    if (applied.contains(ConfigKey.REPORT_INTERVAL)) {
      scheduleReport(next.reportInterval());
    }
    if (touches(applied, IDEMPOTENCY)) {
      parts.idempotency.retune(next.idempotencyRoutes(), next.idempotencyRequireKey());
    }
    parts.report.configReloaded(next);
    return new Outcome(next, List.copyOf(live.values()), refused);
  }

  /** Why a change cannot be applied now; null when it can. */
  private String refusal(ConfigKey key, HotkeyConfig loaded) {
    if (!ConfigChanges.LIVE.contains(key)) {
      return "fixed at start";
    }
    switch (key) {
      case DETECT_TOP_K:
        int capacity = parts.detector.settings().capacity();
        return loaded.detectTopK() > capacity
            ? "the detector was sized at start for at most " + capacity + " hot keys"
            : null;
      case DETECT_FLEET_THRESHOLD:
        return parts.fleet == null
            ? "fleet detection is off: "
                + ConfigKey.FLEET_REDIS_URI.key()
                + " was unusable at start"
            : null;
      case IDEMPOTENCY_ROUTES:
      case IDEMPOTENCY_REQUIRE_KEY:
        return parts.idempotency == null || !parts.httpServersInstrumented
            ? "HTTP servers are instrumented only when routes are configured at start"
            : null;
      default:
        return null;
    }
  }

  private static boolean touches(Set<ConfigKey> applied, Set<ConfigKey> group) {
    for (ConfigKey key : group) {
      if (applied.contains(key)) {
        return true;
      }
    }
    return false;
  }
}
