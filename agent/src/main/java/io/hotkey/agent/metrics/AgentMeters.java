package io.hotkey.agent.metrics;

import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import io.hotkey.agent.idempotency.IdempotencyMeters;
import java.util.List;
import java.util.Map;

/**
 * The agent's figures, read from the parts that own them; exporters (JMX, Micrometer) only read
 * this.
 */
public final class AgentMeters {
  private final RedisGateway gateway;
  private final NearCache cache;
  private final HotKeyRegistry hotKeys;
  private final AgentErrors errors;
  private final IdempotencyMeters idempotency;

  /**
   * @param cache {@link NearCache#DISABLED} when local serving is off
   * @param idempotency null when no idempotency route is configured
   */
  public AgentMeters(
      RedisGateway gateway,
      NearCache cache,
      HotKeyRegistry hotKeys,
      AgentErrors errors,
      IdempotencyMeters idempotency) {
    this.gateway = gateway;
    this.cache = cache;
    this.hotKeys = hotKeys;
    this.errors = errors;
    this.idempotency = idempotency;
  }

  public long readCommands() {
    return gateway.reads();
  }

  public long writeCommands() {
    return gateway.writes();
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

  public long cacheBytes() {
    return cache.bytes();
  }

  public List<String> hotKeys() {
    return hotKeys.hotKeyNames();
  }

  public long agentErrors() {
    return errors.count();
  }

  /**
   * Idempotency outcomes by name (executed, replayed, conflict, ...); empty when idempotency is
   * off.
   */
  public Map<String, Long> idempotencyOutcomes() {
    return idempotency == null ? Map.of() : idempotency.snapshot();
  }
}
