package io.hotkey.agent.http;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.metrics.AgentMeter;
import io.hotkey.agent.metrics.AgentMeters;
import io.micrometer.common.util.internal.logging.InternalLoggerFactory;
import io.micrometer.common.util.internal.logging.JdkLoggerFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /metrics}: the agent's meters in a Prometheus registry of the agent's own (the
 * bundled, relocated Micrometer), so a service without Micrometer has Prometheus series too.
 * Created on the first scrape: an agent whose endpoint is never scraped never loads Micrometer.
 */
final class PrometheusMetrics {
  private final AgentMeters meters;
  private final PrometheusMeterRegistry registry;
  private final MultiGauge keyRates;

  PrometheusMetrics(AgentMeters meters) {
    // the bundled copy would otherwise log through the application's SLF4J, if it has one
    InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    this.meters = meters;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    for (AgentMeter meter : AgentMeter.all(meters)) {
      if (meter.kind() == AgentMeter.Kind.COUNTER) {
        FunctionCounter.builder(meter.name(), meters, meter.value())
            .description(meter.description())
            .tags(meter.tags())
            .register(registry);
      } else {
        Gauge.builder(meter.name(), meters, meter.value())
            .description(meter.description())
            .tags(meter.tags())
            .register(registry);
      }
    }
    this.keyRates =
        MultiGauge.builder(AgentMeter.KEY_RATE)
            .description(AgentMeter.KEY_RATE_DESCRIPTION)
            .register(registry);
  }

  /** The text exposition format (version 0.0.4), one series per hot key among them. */
  synchronized String scrape() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (KeyRate key : meters.hotKeyRates()) {
      rows.add(
          MultiGauge.Row.of(Tags.of("key", AgentLog.printable(key.key())), key.ratePerSecond()));
    }
    keyRates.register(rows, true);
    return registry.scrape();
  }
}
