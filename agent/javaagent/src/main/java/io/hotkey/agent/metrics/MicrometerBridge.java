package io.hotkey.agent.metrics;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.detect.KeyRate;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Registers the agent's meters in the application's own Micrometer {@code Metrics.globalRegistry}
 * (where Spring Boot's actuator finds them) once the application has loaded Micrometer.
 *
 * <p>The application's Micrometer lives in the application's class loader and the agent must not
 * bundle a second copy that would compete with it, so registration goes through reflection against
 * the application's own classes. Per-key gauges exist only for hot keys, so cardinality stays at
 * most {@code hotkey.detect.top-k}.
 */
public final class MicrometerBridge implements HotKeyRegistry.Observer {
  public static final String METRICS_CLASS = micrometerClass("Metrics");

  private final AgentMeters meters;
  private volatile ClassLoader applicationLoader;
  private volatile Api api;
  private final Map<String, KeyGauge> keyGauges = new ConcurrentHashMap<>();

  public MicrometerBridge(AgentMeters meters) {
    this.meters = meters;
  }

  /**
   * The name of the application's own Micrometer class {@code simpleName}, assembled at run time:
   * the jar's build relocates every literal that names Micrometer's package to the agent's bundled
   * copy.
   */
  private static String micrometerClass(String simpleName) {
    return String.join(".", "io", "micrometer", "core", "instrument", simpleName);
  }

  /** The application loaded Micrometer's {@code Metrics} class with this loader. */
  public void micrometerSeen(ClassLoader loader) {
    if (applicationLoader == null) {
      applicationLoader = loader;
    }
  }

  /**
   * Called from the agent's scheduler: registers everything once, as soon as Micrometer is there.
   */
  public void attachIfReady() throws ReflectiveOperationException {
    ClassLoader loader = applicationLoader;
    if (api != null || loader == null) {
      return;
    }
    Api found = new Api(loader);
    for (AgentMeter meter : AgentMeter.all(meters)) {
      if (meter.kind() == AgentMeter.Kind.COUNTER) {
        found.counter(meter.name(), meter.description(), meter.value(), meter.tags());
      } else {
        found.gauge(meter.name(), meter.description(), meters, meter.value(), meter.tags());
      }
    }
    api = found;
    for (KeyGauge gauge : keyGauges.values()) {
      gauge.register(found);
    }
    AgentLog.info("meters registered in the application's Micrometer global registry");
  }

  @Override
  public void onPromoted(KeyRate key) {
    String name = AgentLog.printable(key.key());
    KeyGauge gauge = keyGauges.computeIfAbsent(name, KeyGauge::new);
    gauge.rate = key.ratePerSecond();
    Api current = api;
    if (current != null) {
      gauge.register(current);
    }
  }

  @Override
  public void onDemoted(KeyRate key) {
    KeyGauge gauge = keyGauges.remove(AgentLog.printable(key.key()));
    Api current = api;
    if (gauge != null && current != null) {
      gauge.unregister(current);
    }
  }

  /** Refreshes the per-key rates from the detector's latest window. */
  public void updateRate(KeyRate key) {
    KeyGauge gauge = keyGauges.get(AgentLog.printable(key.key()));
    if (gauge != null) {
      gauge.rate = key.ratePerSecond();
    }
  }

  private static final class KeyGauge {
    final String key;
    volatile double rate;
    Object meter;

    KeyGauge(String key) {
      this.key = key;
    }

    synchronized void register(Api api) {
      if (meter == null) {
        try {
          meter =
              api.gauge(
                  AgentMeter.KEY_RATE,
                  AgentMeter.KEY_RATE_DESCRIPTION,
                  this,
                  g -> g.rate,
                  "key",
                  key);
        } catch (ReflectiveOperationException e) {
          AgentLog.warn("could not register the meter of hot key " + key + ": " + e);
        }
      }
    }

    synchronized void unregister(Api api) {
      if (meter != null) {
        try {
          api.remove(meter);
        } catch (ReflectiveOperationException e) {
          AgentLog.warn("could not remove the meter of hot key " + key + ": " + e);
        }
        meter = null;
      }
    }
  }

  /**
   * The few Micrometer calls the agent needs, bound to the application's own Micrometer classes.
   */
  private final class Api {
    private final Object registry;
    private final Class<?> registryType;
    private final Method counterBuilder;
    private final Method gaugeBuilder;
    private final Method remove;

    Api(ClassLoader loader) throws ReflectiveOperationException {
      Class<?> metrics = Class.forName(METRICS_CLASS, true, loader);
      registry = metrics.getField("globalRegistry").get(null);
      registryType = Class.forName(micrometerClass("MeterRegistry"), false, loader);
      counterBuilder =
          Class.forName(micrometerClass("FunctionCounter"), false, loader)
              .getMethod("builder", String.class, Object.class, ToDoubleFunction.class);
      gaugeBuilder =
          Class.forName(micrometerClass("Gauge"), false, loader)
              .getMethod("builder", String.class, Object.class, ToDoubleFunction.class);
      remove =
          registryType.getMethod("remove", Class.forName(micrometerClass("Meter"), false, loader));
    }

    void counter(
        String name, String description, ToDoubleFunction<AgentMeters> value, String... tags)
        throws ReflectiveOperationException {
      build(counterBuilder.invoke(null, name, meters, value), description, tags);
    }

    <T> Object gauge(
        String name, String description, T source, ToDoubleFunction<T> value, String... tags)
        throws ReflectiveOperationException {
      return build(gaugeBuilder.invoke(null, name, source, value), description, tags);
    }

    void remove(Object meter) throws ReflectiveOperationException {
      remove.invoke(registry, meter);
    }

    private Object build(Object builder, String description, String... tags)
        throws ReflectiveOperationException {
      builder.getClass().getMethod("description", String.class).invoke(builder, description);
      builder.getClass().getMethod("tags", String[].class).invoke(builder, (Object) tags);
      return builder.getClass().getMethod("register", registryType).invoke(builder, registry);
    }
  }
}
