package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.CaffeineNearCache;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.KeysWithoutTtl;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The core as {@code AgentInstaller} wires it, for tests that drive a gateway: a real detector (hot
 * at 50 accesses a second) on a clock the test moves, registry, cache and gateways.
 */
public final class CoreFixture {
  public static final KeyFilter EVERY_KEY = new KeyFilter(List.of(Glob.parse("*")), List.of());

  public final AtomicLong clock = new AtomicLong();
  public final AgentErrors errors;
  public final HotKeyRegistry registry;
  public final HotKeyDetector detector;
  public final KeyVersions versions = new KeyVersions();
  public final NearCache cache;

  /** The cache's gate: admits every reply, records the reports own writes expect. */
  public final RecordingEchoes echoes = new RecordingEchoes(versions);

  /** The permit every connection gets: a test revokes it as a failed weaving would. */
  public final ServingPermit permit = new ServingPermit(true);

  /** Gives every connection {@link #permit}. */
  public final ServingGate gate;

  public final RedisGateway gateways;

  /**
   * @param failEvery {@code hotkey.debug.fail-every}
   * @param cacheEnabled {@code hotkey.cache.enabled}
   */
  public CoreFixture(long failEvery, KeyFilter cacheFilter, boolean cacheEnabled) {
    this(failEvery, cacheFilter, cacheEnabled, Duration.ZERO);
  }

  /**
   * @param serveStale {@code hotkey.cache.serve-stale-on-error}; {@link Duration#ZERO} off
   */
  public CoreFixture(
      long failEvery, KeyFilter cacheFilter, boolean cacheEnabled, Duration serveStale) {
    errors = new AgentErrors(failEvery);
    registry = new HotKeyRegistry(cacheEnabled, cacheFilter, Double.POSITIVE_INFINITY);
    detector =
        new HotKeyDetector(
            DetectorSettings.of(Duration.ofSeconds(1), 50, 10, Duration.ofSeconds(10)),
            clock::get,
            registry);
    cache =
        cacheEnabled
            ? new CaffeineNearCache(
                1 << 20,
                64 << 10,
                Duration.ofSeconds(30),
                0,
                serveStale,
                versions,
                echoes,
                KeysWithoutTtl.INSTANCE,
                KeysWithoutTtl.INSTANCE)
            : NearCache.DISABLED;
    gate =
        new ServingGate() {
          @Override
          public ServingPermit permitFor(Object connection) {
            return permit;
          }

          @Override
          public List<ServingGate.ModuleState> states() {
            return List.of();
          }

          @Override
          public List<String> modules() {
            return List.of();
          }
        };
    gateways = new RedisGateway(detector, registry, cache, versions, errors, gate);
  }

  /**
   * Lets the detector's window pass, one tick at a time, after the test read {@code key} often
   * enough; asserts that it is hot.
   */
  public void promote(String key) {
    for (int i = 0; i < 12; i++) {
      clock.addAndGet(100_000_000L);
      detector.tick();
    }
    assertTrue(
        registry.hotKeyNames().contains(key),
        "expected " + key + " hot: " + registry.hotKeyNames());
  }
}
