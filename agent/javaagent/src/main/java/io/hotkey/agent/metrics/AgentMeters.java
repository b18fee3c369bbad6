package io.hotkey.agent.metrics;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.agent.fleet.FleetDetection;
import io.hotkey.agent.idempotency.IdempotencyMeters;
import io.hotkey.agent.tracking.InvalidationTracking;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's figures, read from the parts that own them; exporters (JMX, Micrometer, the HTTP
 * endpoint) only read this.
 */
public final class AgentMeters {
  private final RedisGateway gateway;
  private final NearCache cache;
  private final HotKeyRegistry hotKeys;
  private final HotKeyDetector detector;
  private final AgentErrors errors;
  private final IdempotencyMeters idempotency;
  private final Map<String, Long> promotedAtMillis = new ConcurrentHashMap<>();
  private final InvalidationTracking tracking;
  private final FleetDetection fleet;
  private final ServingGate serving;

  /**
   * @param cache {@link NearCache#DISABLED} when local serving is off
   * @param idempotency null when no idempotency route is configured
   * @param tracking null unless {@code hotkey.cache.invalidation=tracking} with the cache on
   * @param fleet null when the fleet's Redis URI was unusable (fleet detection can never run then)
   * @param serving each client module's state in each class loader
   */
  public AgentMeters(
      RedisGateway gateway,
      NearCache cache,
      HotKeyRegistry hotKeys,
      HotKeyDetector detector,
      AgentErrors errors,
      IdempotencyMeters idempotency,
      InvalidationTracking tracking,
      FleetDetection fleet,
      ServingGate serving) {
    this.serving = serving;
    this.tracking = tracking;
    this.fleet = fleet;
    this.gateway = gateway;
    this.cache = cache;
    this.hotKeys = hotKeys;
    this.detector = detector;
    this.errors = errors;
    this.idempotency = idempotency;
    hotKeys.addObserver(
        new HotKeyRegistry.Observer() {
          @Override
          public void onPromoted(KeyRate key) {
            promotedAtMillis.put(AgentLog.printable(key.key()), System.currentTimeMillis());
          }

          @Override
          public void onDemoted(KeyRate key) {
            promotedAtMillis.remove(AgentLog.printable(key.key()));
          }
        });
  }

  public long readCommands() {
    return gateway.reads();
  }

  public long writeCommands() {
    return gateway.writes();
  }

  public boolean cacheEnabled() {
    return cache != NearCache.DISABLED;
  }

  public long cacheHits() {
    return cache.hits();
  }

  public long cacheMisses() {
    return cache.misses();
  }

  public long cacheEvictions() {
    return cache.evictions();
  }

  /** Reads chosen to refresh an entry ahead of its expiry. */
  public long cacheRefreshes() {
    return cache.refreshes();
  }

  /** Reads answered from a stale value after a connection failure. */
  public long cacheStaleServed() {
    return cache.staleServed();
  }

  public long cacheBytes() {
    return cache.bytes();
  }

  public long cacheEntries() {
    return cache.entries();
  }

  public List<String> hotKeys() {
    return hotKeys.hotKeyNames();
  }

  /** The hot keys whose writes alone reach the threshold (never served locally). */
  public List<String> writeHotKeys() {
    return hotKeys.writeHotKeyNames();
  }

  /** The hot keys with their rates over the detector's window, highest rate first. */
  public List<KeyRate> hotKeyRates() {
    return detector.hotKeys();
  }

  /**
   * When the key (as {@link AgentLog#printable} shows it) was last promoted, in epoch millis; 0
   * when it is not hot.
   */
  public long promotedAtMillis(String printableKey) {
    return promotedAtMillis.getOrDefault(printableKey, 0L);
  }

  /**
   * The reads of the hot key (as {@link AgentLog#printable} shows it) since it became hot, answered
   * locally or sent to Redis; null when it is not hot or the cache is off.
   */
  public HotKeyReads hotKeyReads(String printableKey) {
    return hotKeys.reads(printableKey);
  }

  /** Threshold, window and the sampling actually used (auto resolved). */
  public DetectorSettings detectorSettings() {
    return detector.settings();
  }

  public long agentErrors() {
    return errors.count();
  }

  public boolean idempotencyEnabled() {
    return idempotency != null;
  }

  /**
   * Idempotency outcomes by name (executed, replayed, conflict, ...); empty when idempotency is
   * off.
   */
  public Map<String, Long> idempotencyOutcomes() {
    return idempotency == null ? Map.of() : idempotency.snapshot();
  }

  /**
   * How other processes' writes reach local entries: {@code tracking} (pushed by the servers, the
   * TTL where one refuses) or {@code ttl} (the TTL alone); {@code off} without a cache.
   */
  public String trackingMode() {
    return !cacheEnabled() ? "off" : tracking == null ? "ttl" : "tracking";
  }

  /** Keys hot across the fleet now; empty without fleet detection. */
  public List<HotKeyRegistry.FleetHotKey> fleetHotKeys() {
    return hotKeys.fleetHotKeys();
  }

  /** Exchanges with the fleet's aggregate that succeeded; 0 without fleet detection. */
  public long fleetExchanges() {
    return fleet == null ? 0 : fleet.exchanges();
  }

  /** Exchanges with the fleet's aggregate that failed; 0 without fleet detection. */
  public long fleetExchangeFailures() {
    return fleet == null ? 0 : fleet.failures();
  }

  /**
   * Served keys the fan-out guard stopped serving and tracking, their invalidations received
   * outweighing their reads here; each cool-down counted once.
   */
  public long fanOutDemotions() {
    return hotKeys.fanOutDemotions();
  }

  /** Keys the servers reported changed; 0 without tracking. */
  public long invalidationsReceived() {
    return tracking == null ? 0 : tracking.invalidatedKeys();
  }

  /**
   * Of those, reports of keys this JVM was writing, held while the write was in flight and applied
   * with its own invalidation; 0 without tracking.
   */
  public long heldInvalidations() {
    return tracking == null ? 0 : tracking.heldEchoes();
  }

  /**
   * Messages of the tracking connections read and applied by threads about to serve a hit; 0
   * without tracking.
   */
  public long helpedInvalidations() {
    return tracking == null ? 0 : tracking.helpedInvalidations();
  }

  /**
   * Reads of hot keys sent to Redis because another thread was reading an overdue tracking
   * connection; 0 without tracking.
   */
  public long invalidationBypasses() {
    return tracking == null ? 0 : tracking.invalidationBypasses();
  }

  /** Times every local entry was dropped at once, by reason; empty without tracking. */
  public Map<String, Long> cacheFlushes() {
    return tracking == null ? Map.of() : tracking.flushes();
  }

  /** Tracked servers by state (starting, tracking, gap, ttl_fallback); empty without tracking. */
  public Map<String, Long> trackingServersByState() {
    return tracking == null ? Map.of() : tracking.serversByState();
  }

  /** Each client module's state in each class loader where it had a connection or failed. */
  public List<ServingGate.ModuleState> instrumentation() {
    return serving.states();
  }

  /** Class loaders where {@code module} is in {@code state} ({@link ServingGate.ModuleState}). */
  public long instrumentationLoaders(String module, String state) {
    long count = 0;
    for (ServingGate.ModuleState s : serving.states()) {
      if (s.module.equals(module) && s.state.equals(state)) {
        count++;
      }
    }
    return count;
  }

  /** The client modules whose state {@link #instrumentation()} reports. */
  public List<String> instrumentationModules() {
    return serving.modules();
  }

  /** One line per tracked server: address, state and how invalidations arrive (or why not). */
  public List<String> trackingServers() {
    return tracking == null ? List.of() : tracking.servers();
  }
}
