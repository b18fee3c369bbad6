package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asks each server the TTL of the keys filled from it, with {@code PTTL} on one connection of the
 * agent's own per server (named {@code hotkey-agent}, logged in as the application's client is),
 * whatever {@code hotkey.cache.invalidation} is: the questions of all fills waiting at that moment
 * are pipelined together.
 */
public final class OwnConnectionTtls implements RemainingTtls {
  /**
   * {@code hotkey.redis.uri}: the one server asked, whatever the replies' servers; null to ask the
   * server each reply came from.
   */
  private final RedisEndpoint override;

  private final ConcurrentHashMap<String, NodeTtls> nodes = new ConcurrentHashMap<>();
  private volatile boolean unknownServerLogged;

  public OwnConnectionTtls(RedisEndpoint override) {
    this.override = override;
  }

  @Override
  public boolean ask(RedisEndpoint node, byte[][] keys, Answer answer) {
    RedisEndpoint server = override != null ? override : node;
    if (server == null || keys == null || keys.length == 0) {
      if (!unknownServerLogged) {
        unknownServerLogged = true;
        AgentLog.warn(
            "a hot key's reply came through a connection whose server the agent cannot tell, so its"
                + " TTL cannot be asked and it is not cached (set hotkey.redis.uri to name the server)");
      }
      return false;
    }
    String name = server.host() + ":" + server.port();
    NodeTtls asker = nodes.get(name);
    if (asker == null) {
      asker = nodes.computeIfAbsent(name, n -> new NodeTtls(n, server));
      asker.startOnce();
    }
    return asker.ask(keys, answer);
  }
}
