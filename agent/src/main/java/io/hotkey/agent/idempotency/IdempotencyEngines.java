package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.config.HotkeyConfig;
import io.hotkey.config.IdempotencyStore;

/** Builds the engine from the configuration. */
public final class IdempotencyEngines {
  /** Bound of the memory store (estimated bytes of all records). */
  public static final long MEMORY_STORE_BYTES = 64L * 1024 * 1024;

  private IdempotencyEngines() {}

  /**
   * @return the engine, or null when no route is configured or the store cannot be built (logged:
   *     the routes then pass through and the rest of the agent works)
   */
  public static IdempotencyEngine fromConfig(HotkeyConfig config) {
    if (config.idempotencyRoutes().patterns().isEmpty()) {
      return null;
    }
    try {
      RecordStore store =
          config.idempotencyStore() == IdempotencyStore.REDIS
              ? new RedisRecordStore(
                  RedisEndpoint.parse(
                      "hotkey.idempotency.redis.uri",
                      config
                          .idempotencyRedisUri()
                          .orElseThrow(
                              () ->
                                  new IllegalArgumentException(
                                      "hotkey.idempotency.store=redis needs hotkey.idempotency.redis.uri"))))
              : new MemoryRecordStore(MEMORY_STORE_BYTES);
      IdempotencyEngine engine = new IdempotencyEngine(IdempotencySettings.from(config), store);
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
              + config.idempotencyOnStoreFailure().name().toLowerCase(java.util.Locale.ROOT));
      return engine;
    } catch (RuntimeException e) {
      AgentLog.warn(
          "idempotency inactive, configured routes pass through untouched: " + e.getMessage());
      return null;
    }
  }
}
