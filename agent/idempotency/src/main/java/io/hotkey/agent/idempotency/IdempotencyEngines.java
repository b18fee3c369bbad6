package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.config.HotkeyConfig;
import io.hotkey.config.IdempotencyStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;

/** Builds the engine from the configuration. */
public final class IdempotencyEngines {
  /** Bound of the memory store (estimated bytes of all records). */
  public static final long MEMORY_STORE_BYTES = 64L * 1024 * 1024;

  private IdempotencyEngines() {}

  /**
   * Returns the engine, or null when no route is configured or the store cannot be built (logged:
   * the routes then pass through and the rest of the agent works).
   */
  public static IdempotencyEngine fromConfig(HotkeyConfig config) {
    IdempotencySettings settings = IdempotencySettings.from(config);
    if (!settings.hasRoutes()) {
      return null;
    }
    try {
      RecordStore store =
          config.idempotencyStore() == IdempotencyStore.REDIS
              ? new RedisRecordStore(redisEndpoint(config), config.idempotencyRedisTimeout())
              : new MemoryRecordStore(MEMORY_STORE_BYTES);
      IdempotencyEngine engine = new IdempotencyEngine(settings, store);
      AgentLog.info(
          "idempotency: routes="
              + config.idempotencyRoutes()
              + " store="
              + store.describe()
              + " lease="
              + config.idempotencyLease().toMillis()
              + "ms ttl="
              + config.idempotencyTtl().toSeconds()
              + "s"
              + " on-store-failure="
              + config.idempotencyOnStoreFailure().name().toLowerCase(Locale.ROOT)
              + settings.describeGuards()
              + " scope=headers "
              + config.idempotencyScopeHeaders()
              + ", principal, cookies "
              + config.idempotencyScopeCookies());
      return engine;
    } catch (RuntimeException e) {
      AgentLog.warn(
          "idempotency inactive, configured routes pass through untouched: " + e.getMessage());
      return null;
    }
  }

  private static RedisEndpoint redisEndpoint(HotkeyConfig config) {
    RedisEndpoint endpoint =
        RedisEndpoint.parse(
            "hotkey.idempotency.redis.uri",
            config
                .idempotencyRedisUri()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "hotkey.idempotency.store=redis needs hotkey.idempotency.redis.uri")));
    Path trustStore = config.idempotencyRedisTrustStore().orElse(null);
    if (trustStore == null) {
      return endpoint;
    }
    try {
      return endpoint.withTrustStore(trustStore);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "hotkey.idempotency.redis.trust-store " + trustStore + ": " + e.getMessage(), e);
    }
  }
}
