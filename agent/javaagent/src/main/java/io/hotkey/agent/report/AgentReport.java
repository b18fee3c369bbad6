package io.hotkey.agent.report;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.metrics.AgentMeters;
import io.hotkey.config.ConfigEntry;
import io.hotkey.config.HotkeyConfig;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The agent's state as one JSON document: what {@code GET /api/hotkeys}, the live page and {@code
 * status} show. Every figure is read when the report is made; keys appear as the log lines print
 * them.
 *
 * <p>The document grows by adding members, never by reshaping: a hot key is an object (room for
 * flags such as write-hot), its {@code key} is the one place a key is shown (so it can be redacted
 * there), and {@code scope} and {@code tracking} already say what a cluster-wide view will change.
 */
public final class AgentReport {
  /** Hot keys seen by this JVM alone, as opposed to a fleet-wide view. */
  static final String SCOPE_LOCAL = "local";

  private volatile HotkeyConfig config;
  private final AgentMeters meters;
  private final LiveSampler sampler;
  private final String version;
  private final long startedAtMillis = System.currentTimeMillis();

  public AgentReport(HotkeyConfig config, AgentMeters meters) {
    this.config = config;
    this.meters = meters;
    this.sampler = new LiveSampler(meters);
    String implementation = AgentReport.class.getPackage().getImplementationVersion();
    this.version = implementation == null ? "dev" : implementation;
  }

  /** The configuration the agent runs with after a reload applied some of its keys. */
  public void configReloaded(HotkeyConfig running) {
    config = running;
  }

  public AgentMeters meters() {
    return meters;
  }

  /** Starts the once-a-second sampler behind the per-second figures and the chart's history. */
  public void startSampling() {
    sampler.ensureRunning();
  }

  /**
   * The current state, for {@code /api/hotkeys} and the JMX attribute {@code ReportJson}. The first
   * call starts the sampler, so its per-second figures are null.
   */
  public String json() {
    sampler.ensureRunning();
    JsonWriter json = new JsonWriter().beginObject();
    json.name("agent")
        .beginObject()
        .name("version")
        .value(version)
        .name("pid")
        .value(ProcessHandle.current().pid())
        .name("startedAt")
        .value(startedAtMillis)
        .name("time")
        .value(System.currentTimeMillis())
        .endObject();
    json.name("scope").value(SCOPE_LOCAL);
    json.name("fleetHotKeys").beginArray();
    for (HotKeyRegistry.FleetHotKey key : meters.fleetHotKeys()) {
      String name = AgentLog.printable(key.key());
      json.beginObject()
          .name("key")
          .value(name)
          .name("fleetRatePerSecond")
          .value(key.fleetRatePerSecond());
      writeReads(json, meters.hotKeyReads(name), meters.cacheEnabled());
      json.endObject();
    }
    json.endArray();
    json.name("tracking")
        .beginObject()
        .name("mode")
        .value(meters.trackingMode())
        .name("ttlMillis")
        .value(config.cacheTtl().toMillis())
        .name("invalidations")
        .value(meters.invalidationsReceived())
        .name("bypassed")
        .value(meters.invalidationBypasses())
        .name("flushes")
        .beginObject();
    for (Map.Entry<String, Long> flush : meters.cacheFlushes().entrySet()) {
      json.name(flush.getKey()).value(flush.getValue());
    }
    json.endObject().name("servers").beginArray();
    for (String server : meters.trackingServers()) {
      json.value(server);
    }
    json.endArray().endObject();
    json.name("instrumentation").beginArray();
    for (ServingGate.ModuleState module : meters.instrumentation()) {
      json.value(
          module.module
              + " "
              + module.state
              + " in "
              + module.loader
              + (module.reason == null ? "" : " (" + module.reason + ")"));
    }
    json.endArray();
    DetectorSettings detector = meters.detectorSettings();
    json.name("detector")
        .beginObject()
        .name("threshold")
        .value(detector.threshold())
        .name("windowMillis")
        .value(detector.window().toMillis())
        .name("topK")
        .value(detector.topK())
        .name("sampling")
        .value(detector.sampling())
        .endObject();
    LiveSampler.CounterRates rates = sampler.rates();
    json.name("commands")
        .beginObject()
        .name("reads")
        .value(meters.readCommands())
        .name("writes")
        .value(meters.writeCommands());
    rate(json, "readsPerSecond", rates, r -> r.readsPerSecond);
    rate(json, "writesPerSecond", rates, r -> r.writesPerSecond);
    json.endObject();
    writeHotKeys(json);
    writeCache(json, rates);
    json.name("redis").beginObject().name("saved").value(meters.cacheHits());
    rate(json, "savedPerSecond", rates, r -> r.hitsPerSecond);
    json.endObject();
    json.name("idempotency")
        .beginObject()
        .name("enabled")
        .value(meters.idempotencyEnabled())
        .name("outcomes")
        .beginObject();
    for (Map.Entry<String, Long> outcome : meters.idempotencyOutcomes().entrySet()) {
      json.name(outcome.getKey()).value(outcome.getValue());
    }
    json.endObject().endObject();
    json.name("agentErrors").value(meters.agentErrors());
    json.name("config").beginArray();
    for (ConfigEntry entry : config.entries()) {
      json.beginObject()
          .name("key")
          .value(entry.key())
          .name("value")
          .value(entry.value())
          .name("source")
          .value(entry.source())
          .endObject();
    }
    json.endArray();
    return json.endObject().toString();
  }

  /** The top keys' rates over the last five minutes, one point a second, for the page's chart. */
  public String historyJson() {
    JsonWriter json = new JsonWriter().beginObject();
    json.name("threshold").value(meters.detectorSettings().threshold());
    json.name("points").beginArray();
    for (LiveSampler.HistoryPoint point : sampler.history()) {
      json.beginObject().name("time").value(point.timeMillis).name("keys").beginArray();
      for (LiveSampler.HistoryPoint.KeyPoint key : point.keys) {
        json.beginObject().name("key").value(key.key).name("rate").value(key.rate).endObject();
      }
      json.endArray().endObject();
    }
    return json.endArray().endObject().toString();
  }

  private void writeHotKeys(JsonWriter json) {
    json.name("hotKeys").beginArray();
    List<String> writeHot = meters.writeHotKeys();
    for (KeyRate key : meters.hotKeyRates()) {
      String name = AgentLog.printable(key.key());
      long promotedAt = meters.promotedAtMillis(name);
      json.beginObject()
          .name("key")
          .value(name)
          .name("scope")
          .value(SCOPE_LOCAL)
          .name("rate")
          .value(key.ratePerSecond())
          .name("readShare")
          .value(key.readShare())
          .name("reads")
          .value(key.reads())
          .name("writes")
          .value(key.writes())
          .name("truncated")
          .value(key.truncated())
          .name("keyLength")
          .value(key.keyLength())
          .name("writeHot")
          .value(writeHot.contains(name))
          .name("promotedAt");
      if (promotedAt == 0) {
        json.nullValue();
      } else {
        json.value(promotedAt);
      }
      writeReads(json, meters.hotKeyReads(name), meters.cacheEnabled());
      json.endObject();
    }
    json.endArray();
  }

  /**
   * A hot key's reads since it became hot: {@code hits} (answered locally), {@code misses} (sent to
   * Redis) and {@code hitRatio}, read once so that the ratio is theirs; all null when nothing is
   * counted (the cache is off), the ratio null before the first read. With the cache on, a key the
   * detector has just promoted has no counts until the registry hears of it: none counted yet.
   */
  private static void writeReads(JsonWriter json, HotKeyReads reads, boolean counted) {
    if (!counted) {
      json.name("hits").nullValue().name("misses").nullValue().name("hitRatio").nullValue();
      return;
    }
    long hits = reads == null ? 0 : reads.hits();
    long misses = reads == null ? 0 : reads.misses();
    json.name("hits").value(hits).name("misses").value(misses);
    hitRatio(json, hits, misses);
  }

  private static void hitRatio(JsonWriter json, long hits, long misses) {
    json.name("hitRatio");
    if (hits + misses == 0) {
      json.nullValue();
    } else {
      json.value((double) hits / (hits + misses));
    }
  }

  private void writeCache(JsonWriter json, LiveSampler.CounterRates rates) {
    long hits = meters.cacheHits();
    long misses = meters.cacheMisses();
    json.name("cache")
        .beginObject()
        .name("enabled")
        .value(meters.cacheEnabled())
        .name("entries")
        .value(meters.cacheEntries())
        .name("bytes")
        .value(meters.cacheBytes())
        .name("maxBytes")
        .value(config.cacheMaxBytes())
        .name("hits")
        .value(hits)
        .name("misses")
        .value(misses)
        .name("evictions")
        .value(meters.cacheEvictions())
        .name("refreshes")
        .value(meters.cacheRefreshes())
        .name("staleServed")
        .value(meters.cacheStaleServed());
    hitRatio(json, hits, misses);
    rate(json, "hitsPerSecond", rates, r -> r.hitsPerSecond);
    rate(json, "missesPerSecond", rates, r -> r.missesPerSecond);
    json.endObject();
  }

  /** A per-second figure: null until the sampler has two samples, rather than a made-up zero. */
  private static void rate(
      JsonWriter json,
      String name,
      LiveSampler.CounterRates rates,
      ToDoubleFunction<LiveSampler.CounterRates> figure) {
    json.name(name);
    if (rates == null) {
      json.nullValue();
    } else {
      json.value(figure.applyAsDouble(rates));
    }
  }
}
