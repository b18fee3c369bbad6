package io.hotkey.agent;

import io.hotkey.agent.cache.CaffeineNearCache;
import io.hotkey.agent.cache.FillGate;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.FanOutGuard;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ServerSightings;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.fleet.FleetDetection;
import io.hotkey.agent.fleet.FleetRedis;
import io.hotkey.agent.http.HttpEndpoint;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencyEngines;
import io.hotkey.agent.instrument.InstrumentationListener;
import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.ModuleHealth;
import io.hotkey.agent.instrument.ModuleInstaller;
import io.hotkey.agent.instrument.WovenClassCache;
import io.hotkey.agent.instrument.jdkhttp.IdempotencyFilters;
import io.hotkey.agent.instrument.jdkhttp.JdkHttpServerInstrumentationModule;
import io.hotkey.agent.instrument.jedis.v3_0.Jedis3InstrumentationModule;
import io.hotkey.agent.instrument.jedis.v4_0.Jedis4InstrumentationModule;
import io.hotkey.agent.instrument.lettuce.v5_0.Lettuce5InstrumentationModule;
import io.hotkey.agent.instrument.lettuce.v6_0.Lettuce6InstrumentationModule;
import io.hotkey.agent.instrument.servlet.ServletBridge;
import io.hotkey.agent.instrument.servlet.ServletInstrumentationModule;
import io.hotkey.agent.instrument.webflux.WebFluxBridge;
import io.hotkey.agent.instrument.webflux.WebFluxInstrumentationModule;
import io.hotkey.agent.metrics.AgentMeters;
import io.hotkey.agent.metrics.JmxExporter;
import io.hotkey.agent.metrics.MicrometerBridge;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.reload.ConfigReloader;
import io.hotkey.agent.reload.ConfigSource;
import io.hotkey.agent.reload.LiveReconfiguration;
import io.hotkey.agent.report.AgentReport;
import io.hotkey.agent.tracking.InvalidationTracking;
import io.hotkey.agent.tracking.OwnConnections;
import io.hotkey.config.ConfigKey;
import io.hotkey.config.HotkeyConfig;
import io.hotkey.config.Invalidation;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Installs the instrumentations from a valid configuration; wires the core and starts its scheduler
 * when the application loads the first class an instrumentation names ({@link ModuleInstaller}), so
 * that a JVM that never does pays for little more than reading the configuration.
 */
final class AgentInstaller {
  /** How often served keys are touched on their servers: well within any eviction's horizon. */
  private static final long TOUCH_ROUND_MILLIS = 1000;

  private AgentInstaller() {}

  static void install(HotkeyConfig config, ConfigSource source, Instrumentation instrumentation) {
    AgentLog.redact(config.reportRedact(), config.reportRedactPrefix());
    DetectorSettings settings =
        DetectorSettings.builder()
            .window(config.detectWindow())
            .threshold(config.detectThreshold())
            .topK(config.detectTopK())
            .coolDown(config.detectCoolDown())
            .sampling(
                config
                    .detectSampling()
                    .orElse(0)) // 0: the default, derived from threshold and window
            .build();
    List<InstrumentationModule> clients = redisClientModules();
    List<InstrumentationModule> modules = new ArrayList<>(clients);
    if (!config.idempotencyRoutes().patterns().isEmpty()) {
      modules.add(new JdkHttpServerInstrumentationModule());
      modules.add(new ServletInstrumentationModule());
      modules.add(new WebFluxInstrumentationModule());
    }
    ModuleHealth health = new ModuleHealth(clients);
    MicrometerSighting micrometer = new MicrometerSighting();
    ModuleInstaller.install(
        instrumentation,
        modules,
        Map.of(MicrometerBridge.METRICS_CLASS.replace('.', '/'), micrometer::seen),
        () -> startCore(config, source, settings, micrometer, health),
        health,
        config.debugFailWeaving().orElse(null),
        weaveCache(config));
    // a StringBuilder, not string concatenation: its first use in a JVM bootstraps a method handle
    // chain per shape, which is a noticeable part of the start of a JVM that loads no client
    StringBuilder line =
        new StringBuilder("active: version=").append(AgentEntry.version()).append(" clients=");
    for (int i = 0; i < modules.size(); i++) {
      line.append(i == 0 ? "" : ",").append(modules.get(i).name());
    }
    line.append(" threshold=")
        .append(config.detectThreshold())
        .append("/s window=")
        .append(config.detectWindow().toMillis())
        .append("ms sampling=1/")
        .append(settings.sampling())
        .append(" cache=")
        .append(config.cacheEnabled() ? "on" : "off")
        .append(" invalidation=")
        .append(
            config.cacheEnabled()
                ? config.cacheInvalidation().name().toLowerCase(Locale.ROOT)
                : "none")
        .append(" ttl=")
        .append(config.cacheTtl().toMillis())
        .append("ms");
    AgentLog.info(line.toString());
  }

  /** The Redis clients, each version line gated by a class only it has. */
  static List<InstrumentationModule> redisClientModules() {
    return List.of(
        new Jedis4InstrumentationModule(),
        new Jedis3InstrumentationModule(),
        new Lettuce6InstrumentationModule(),
        new Lettuce5InstrumentationModule());
  }

  /**
   * Builds the core, starts its thread and activates the hooks, before the first class an
   * instrumentation names is transformed.
   */
  private static InstrumentationListener startCore(
      HotkeyConfig config,
      ConfigSource source,
      DetectorSettings settings,
      MicrometerSighting sighting,
      ServingGate serving)
      throws Exception {
    AgentErrors errors = new AgentErrors(config.debugFailEvery());
    KeyVersions versions = new KeyVersions();
    HotKeyRegistry registry =
        new HotKeyRegistry(
            config.cacheEnabled(),
            config.cacheKeyFilter(),
            config.detectWriteThreshold(),
            config.debugEveryKeyHot());
    HotKeyDetector detector = new HotKeyDetector(settings, System::nanoTime, registry);
    RedisEndpoint namedServer =
        config
            .redisUri()
            .map(uri -> RedisEndpoint.parse(ConfigKey.REDIS_URI.key(), uri))
            .orElse(null);
    InvalidationTracking tracking = null;
    if (config.cacheEnabled() && config.cacheInvalidation() == Invalidation.TRACKING) {
      tracking = new InvalidationTracking(versions, namedServer);
      registry.guardFanOut(
          new FanOutGuard(
              config.cacheFanOutLimit().orElse(0),
              config.detectWindow(),
              config.cacheFanOutCoolDown()));
      tracking.countReports(registry::countInvalidation);
      registry.addFanOutListener(tracking::untrack);
      registry.addServableListener(tracking::wantedKeys);
    }
    OwnConnections ownConnections = new OwnConnections(namedServer);
    NearCache cache =
        config.cacheEnabled()
            ? new CaffeineNearCache(
                config.cacheMaxBytes(),
                config.cacheMaxEntryBytes(),
                config.cacheTtl(),
                config.cacheRefreshAhead().orElse(0),
                config.cacheServeStaleOnError().orElse(Duration.ZERO),
                versions,
                tracking != null ? tracking : FillGate.OPEN,
                ownConnections,
                ownConnections)
            : NearCache.DISABLED;
    RedisGateway gateway = new RedisGateway(detector, registry, cache, versions, errors, serving);
    // a reload can turn fleet detection on and off, wherever its Redis is
    FleetRedis fleetRedis = fleetRedis(config, namedServer, gateway.sightings());
    FleetDetection fleet =
        fleetRedis == null
            ? null
            : new FleetDetection(detector, registry, fleetRedis, config.fleetNamespace(), errors);

    IdempotencyEngine idempotency = IdempotencyEngines.fromConfig(config);

    AgentMeters meters =
        new AgentMeters(
            gateway,
            cache,
            registry,
            detector,
            errors,
            idempotency == null ? null : idempotency.meters(),
            tracking,
            fleet,
            serving);
    AgentReport report = new AgentReport(config, meters);
    MicrometerBridge micrometer = new MicrometerBridge(meters);
    registry.addObserver(micrometer);
    sighting.attach(micrometer);

    LiveReconfiguration.Parts parts =
        new LiveReconfiguration.Parts(detector, registry, cache, versions, report)
            .fleet(fleet)
            .idempotency(idempotency, !config.idempotencyRoutes().patterns().isEmpty());
    startScheduler(config, source, parts, meters, report, micrometer, errors);
    RedisHooks.activate(gateway);
    if (idempotency != null) {
      IdempotencyFilters.activate(idempotency, errors);
      ServletBridge.activate(idempotency, errors);
      WebFluxBridge.activate(idempotency, errors);
    }
    if (fleet != null) {
      fleet.setThreshold(config.detectFleetThreshold());
    }
    HttpEndpoint.startIfConfigured(config, report);
    return new Listener(errors);
  }

  /**
   * The woven classes the agent jar bundles and, with {@code hotkey.weave-cache.dir}, those kept
   * there; null when the agent does not run from a jar it can read (then every class is woven; a
   * directory that cannot be used is told and left out).
   */
  private static WovenClassCache weaveCache(HotkeyConfig config) {
    Path dir = config.weaveCacheDir().orElse(null);
    if (dir != null) {
      try {
        dir = WovenClassCache.checkPrivate(dir);
      } catch (IOException | RuntimeException e) {
        AgentLog.warn(
            ConfigKey.WEAVE_CACHE_DIR.key()
                + " is not used, no weave is kept for the next start: "
                + (e instanceof FileSystemException ? e.toString() : e.getMessage()));
        dir = null;
      }
    }
    try {
      return WovenClassCache.open(dir);
    } catch (IOException | RuntimeException e) {
      String problem = e instanceof FileSystemException ? e.toString() : e.getMessage();
      if (dir != null) {
        AgentLog.warn(ConfigKey.WEAVE_CACHE_DIR.key() + " is not used: " + problem);
      } else {
        AgentLog.info("the weaves the agent jar bundles are not used: " + problem);
      }
      return null;
    }
  }

  /**
   * {@code hotkey.fleet.redis.uri}, else {@code hotkey.redis.uri}, else the one deployment the
   * application's clients use; null when the fleet's URI is unusable, which turns off only fleet
   * detection.
   */
  private static FleetRedis fleetRedis(
      HotkeyConfig config, RedisEndpoint namedServer, ServerSightings sightings) {
    if (config.fleetRedisUri().isPresent()) {
      try {
        return FleetRedis.named(
            RedisEndpoint.parse(ConfigKey.FLEET_REDIS_URI.key(), config.fleetRedisUri().get()));
      } catch (RuntimeException e) {
        AgentLog.warn("fleet detection is off: " + e.getMessage());
        return null;
      }
    }
    return namedServer != null ? FleetRedis.named(namedServer) : FleetRedis.discovered(sightings);
  }

  private static void startScheduler(
      HotkeyConfig config,
      ConfigSource source,
      LiveReconfiguration.Parts parts,
      AgentMeters meters,
      AgentReport report,
      MicrometerBridge micrometer,
      AgentErrors errors) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "hotkey-agent");
              thread.setDaemon(true);
              return thread;
            });
    JmxExporter.registerOnceServerExists(
        scheduler,
        guarded("JMX registration", errors, () -> JmxExporter.register(meters, report::json)));
    HotKeyDetector detector = parts.detector();
    long slotNanos = detector.settings().slot().toNanos();
    // the periodic tasks are guarded (an exception is counted and logged, the task runs on), and
    // they end with the scheduler: their futures are never read
    Future<?> unusedTick =
        scheduler.scheduleAtFixedRate(
            guarded(
                "detector tick",
                errors,
                () -> {
                  detector.tick();
                  List<KeyRate> hot = detector.hotKeys();
                  parts.registry().onRates(hot);
                  parts
                      .registry()
                      .checkFanOut(System.nanoTime(), (double) detector.settings().threshold());
                  for (KeyRate key : hot) {
                    micrometer.updateRate(key);
                  }
                }),
            slotNanos,
            slotNanos,
            TimeUnit.NANOSECONDS);
    NearCache cache = parts.cache();
    Future<?> unusedTouches =
        scheduler.scheduleWithFixedDelay(
            guarded(
                "touch round",
                errors,
                () -> {
                  cache.touchServed();
                  cache.dropExpired();
                }),
            TOUCH_ROUND_MILLIS,
            TOUCH_ROUND_MILLIS,
            TimeUnit.MILLISECONDS);
    Future<?> unusedMicrometer =
        scheduler.scheduleWithFixedDelay(
            guarded("Micrometer registration", errors, micrometer::attachIfReady),
            1,
            1,
            TimeUnit.SECONDS);
    LiveReconfiguration live =
        new LiveReconfiguration(
            parts, scheduler, guarded("top keys report", errors, () -> reportTopKeys(detector)));
    live.scheduleReport(config.reportInterval());
    config
        .configFile()
        .ifPresent(
            file -> {
              ConfigReloader reloader = new ConfigReloader(file, source, config, live);
              Future<?> unusedReload =
                  scheduler.scheduleWithFixedDelay(
                      guarded("configuration reload", errors, reloader::poll),
                      1,
                      1,
                      TimeUnit.SECONDS);
            });
  }

  private static void reportTopKeys(HotKeyDetector detector) {
    List<KeyRate> top = detector.topKeys(10);
    if (top.isEmpty()) {
      return;
    }
    StringJoiner line = new StringJoiner(", ", "top keys: ", "");
    for (KeyRate key : top) {
      line.add(
          "\""
              + AgentLog.printable(key.key())
              + "\" "
              + Math.round(key.ratePerSecond())
              + "/s "
              + Math.round(100 * key.readShare())
              + "% reads");
    }
    AgentLog.info(line.toString());
  }

  private interface Task {
    void run() throws Exception;
  }

  private static Runnable guarded(String where, AgentErrors errors, Task task) {
    return () -> {
      try {
        task.run();
      } catch (Throwable t) {
        errors.record(where, t);
      }
    };
  }

  /** The application's Micrometer, which it may load before the core exists. */
  private static final class MicrometerSighting {
    private ClassLoader loader;
    private MicrometerBridge bridge;

    synchronized void seen(ClassLoader applicationLoader) {
      if (applicationLoader == null) {
        return;
      }
      if (bridge != null) {
        bridge.micrometerSeen(applicationLoader);
      } else if (loader == null) {
        loader = applicationLoader;
      }
    }

    synchronized void attach(MicrometerBridge micrometer) {
      bridge = micrometer;
      if (loader != null) {
        micrometer.micrometerSeen(loader);
      }
    }
  }

  /** Logs every class transformed and counts every failure. */
  private static final class Listener implements InstrumentationListener {
    private final AgentErrors errors;

    /**
     * The class this thread's transformers reported last as it loaded: a class that gains members
     * and advice is reported by both transformers, one after the other, and logged once.
     */
    private final ThreadLocal<String> lastLoaded = new ThreadLocal<>();

    Listener(AgentErrors errors) {
      this.errors = errors;
    }

    @Override
    public void transformed(String typeName, boolean retransformed) {
      if (!retransformed) {
        if (typeName.equals(lastLoaded.get())) {
          return;
        }
        lastLoaded.set(typeName);
      }
      AgentLog.info(
          "instrumented " + typeName + (retransformed ? " (already loaded, retransformed)" : ""));
    }

    @Override
    public void failed(String typeName, Throwable error) {
      errors.record("instrumenting " + typeName, error);
    }
  }
}
