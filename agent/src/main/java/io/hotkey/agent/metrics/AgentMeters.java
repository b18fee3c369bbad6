package io.hotkey.agent.metrics;

import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.RedisGateway;
import java.util.List;

/** The agent's figures, read from the parts that own them; exporters (JMX, Micrometer) only read this. */
public final class AgentMeters {
  private final RedisGateway gateway;
  private final NearCache cache;
  private final HotKeyRegistry hotKeys;
  private final AgentErrors errors;

  /** @param cache null when local serving is off */
  public AgentMeters(RedisGateway gateway, NearCache cache, HotKeyRegistry hotKeys, AgentErrors errors) {
    this.gateway = gateway;
    this.cache = cache;
    this.hotKeys = hotKeys;
    this.errors = errors;
  }

  public long readCommands() {
    return gateway.reads();
  }

  public long writeCommands() {
    return gateway.writes();
  }

  public long cacheHits() {
    return cache == null ? 0 : cache.hits();
  }

  public long cacheMisses() {
    return cache == null ? 0 : cache.misses();
  }

  public long cacheEvictions() {
    return cache == null ? 0 : cache.evictions();
  }

  public long cacheBytes() {
    return cache == null ? 0 : cache.bytes();
  }

  public List<String> hotKeys() {
    return hotKeys.hotKeyNames();
  }

  public long agentErrors() {
    return errors.count();
  }
}
