package io.hotkey.agent;

import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencyEngines;
import io.hotkey.agent.instrument.ClientInstrumentation;
import io.hotkey.agent.instrument.jdkhttp.IdempotencyFilters;
import io.hotkey.agent.instrument.jdkhttp.JdkHttpServerInstrumentation;
import io.hotkey.agent.instrument.jedis.v3_0.Jedis3ConnectionInstrumentation;
import io.hotkey.agent.instrument.jedis.v4_0.JedisConnectionInstrumentation;
import io.hotkey.agent.instrument.lettuce.v6_0.LettuceInstrumentation;
import io.hotkey.agent.instrument.servlet.ServletInstrumentation;
import io.hotkey.agent.metrics.AgentMeters;
import io.hotkey.agent.metrics.JmxExporter;
import io.hotkey.agent.metrics.MicrometerBridge;
import io.hotkey.config.HotkeyConfig;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * Wires the core from a valid configuration, starts its scheduler and installs the
 * instrumentations.
 */
final class AgentInstaller {
  private static final List<ClientInstrumentation> INSTRUMENTATIONS =
      List.of(
          new JedisConnectionInstrumentation(),
          new Jedis3ConnectionInstrumentation(),
          new LettuceInstrumentation());

  private static final ElementMatcher.Junction<TypeDescription> IGNORED =
      nameStartsWith("io.hotkey.")
          .or(nameStartsWith("java."))
          .or(nameStartsWith("jdk."))
          .or(nameStartsWith("sun.").and(not(nameStartsWith("sun.net.httpserver."))))
          .or(isSynthetic());

  private AgentInstaller() {}

  static void install(HotkeyConfig config, Instrumentation instrumentation) throws Exception {
    AgentErrors errors = new AgentErrors(config.debugFailEvery());
    KeyVersions versions = new KeyVersions();
    HotKeyRegistry registry = new HotKeyRegistry(config.cacheEnabled(), config.cacheKeyFilter());
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
    HotKeyDetector detector = new HotKeyDetector(settings, System::nanoTime, registry);
    NearCache cache =
        config.cacheEnabled()
            ? new NearCache(
                config.cacheMaxBytes(), config.cacheMaxEntryBytes(), config.cacheTtl(), versions)
            : null;
    RedisGateway gateway = new RedisGateway(detector, registry, cache, versions, errors);

    IdempotencyEngine idempotency = IdempotencyEngines.fromConfig(config);

    AgentMeters meters =
        new AgentMeters(
            gateway, cache, registry, errors, idempotency == null ? null : idempotency.meters());
    JmxExporter.register(meters);
    MicrometerBridge micrometer = new MicrometerBridge(meters);
    registry.addObserver(micrometer);

    startScheduler(config, detector, micrometer, errors);
    RedisHooks.activate(gateway);
    List<ClientInstrumentation> instrumentations = new ArrayList<>(INSTRUMENTATIONS);
    if (idempotency != null) {
      IdempotencyFilters.activate(idempotency, errors);
      instrumentations.add(new JdkHttpServerInstrumentation());
      instrumentations.add(new ServletInstrumentation(idempotency, errors));
    }
    String clients = installInstrumentations(instrumentation, instrumentations, micrometer, errors);

    AgentLog.info(
        "active: version="
            + HotkeyAgent.version()
            + " clients="
            + clients
            + " threshold="
            + config.detectThreshold()
            + "/s window="
            + config.detectWindow().toMillis()
            + "ms"
            + " sampling=1/"
            + settings.sampling()
            + " cache="
            + (config.cacheEnabled() ? "on" : "off"));
  }

  private static void startScheduler(
      HotkeyConfig config,
      HotKeyDetector detector,
      MicrometerBridge micrometer,
      AgentErrors errors) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "hotkey-agent");
              thread.setDaemon(true);
              return thread;
            });
    long slotNanos = detector.settings().slot().toNanos();
    scheduler.scheduleAtFixedRate(
        guarded(
            "detector tick",
            errors,
            () -> {
              detector.tick();
              for (KeyRate key : detector.hotKeys()) {
                micrometer.updateRate(key);
              }
            }),
        slotNanos,
        slotNanos,
        TimeUnit.NANOSECONDS);
    scheduler.scheduleWithFixedDelay(
        guarded("Micrometer registration", errors, micrometer::attachIfReady),
        1,
        1,
        TimeUnit.SECONDS);
    long reportNanos = config.reportInterval().toNanos();
    if (reportNanos > 0) {
      scheduler.scheduleAtFixedRate(
          guarded("top keys report", errors, () -> reportTopKeys(detector)),
          reportNanos,
          reportNanos,
          TimeUnit.NANOSECONDS);
    }
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

  private static String installInstrumentations(
      Instrumentation instrumentation,
      List<ClientInstrumentation> instrumentations,
      MicrometerBridge micrometer,
      AgentErrors errors) {
    // inlined advice needs no class injection; without this Byte Buddy probes sun.misc.Unsafe,
    // which
    // JDK 24+ reports on the application's stderr (the constant is the relocated property name)
    System.setProperty(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
    Listener listener = new Listener(micrometer, errors);
    AgentBuilder builder =
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(listener)
            .ignore(IGNORED);
    // members can be added only to classes not loaded yet, so this one never retransforms
    AgentBuilder atLoad =
        new AgentBuilder.Default()
            .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
            .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
            .with(listener)
            .ignore(IGNORED);
    AgentBuilder.Transformer.ForAdvice advice =
        new AgentBuilder.Transformer.ForAdvice().include(AgentInstaller.class.getClassLoader());
    StringJoiner names = new StringJoiner(",");
    for (ClientInstrumentation client : instrumentations) {
      builder = client.extend(builder, advice);
      atLoad = client.extendAtLoad(atLoad);
      names.add(client.name());
    }
    atLoad.installOn(instrumentation);
    builder.installOn(instrumentation);
    return names.toString();
  }

  /** Reports transformation failures and notices when the application loads Micrometer. */
  private static final class Listener extends AgentBuilder.Listener.Adapter {
    private final MicrometerBridge micrometer;
    private final AgentErrors errors;

    Listener(MicrometerBridge micrometer, AgentErrors errors) {
      this.micrometer = micrometer;
      this.errors = errors;
    }

    @Override
    public void onDiscovery(
        String typeName, ClassLoader classLoader, JavaModule module, boolean loaded) {
      if (MicrometerBridge.METRICS_CLASS.equals(typeName) && classLoader != null) {
        micrometer.micrometerSeen(classLoader);
      }
    }

    @Override
    public void onTransformation(
        TypeDescription type,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        DynamicType dynamicType) {
      AgentLog.info(
          "instrumented " + type.getName() + (loaded ? " (already loaded, retransformed)" : ""));
    }

    @Override
    public void onError(
        String typeName,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        Throwable throwable) {
      errors.record("instrumenting " + typeName, throwable);
    }
  }
}
