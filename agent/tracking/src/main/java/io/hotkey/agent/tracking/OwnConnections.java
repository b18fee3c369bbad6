package io.hotkey.agent.tracking;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.cache.ServedKeyTouches;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's own connections to the servers hot keys are read from, one per server and database
 * (named {@code hotkey-agent}, logged in as the application's client is), whatever {@code
 * hotkey.cache.invalidation} is: they ask the TTL of the keys filled from each server and touch the
 * keys served locally, pipelining all that waits at the moment.
 */
public final class OwnConnections implements RemainingTtls, ServedKeyTouches {
  /**
   * {@code hotkey.redis.uri}: the one server asked, whatever the replies' servers; null to ask the
   * server each reply came from.
   */
  private final RedisEndpoint override;

  private final ConcurrentHashMap<String, OwnNodeConnection> nodes = new ConcurrentHashMap<>();
  private volatile boolean unknownServerLogged;

  public OwnConnections(RedisEndpoint override) {
    this.override = override;
  }

  @Override
  public boolean ask(RedisEndpoint node, int database, byte[][] keys, Answer answer) {
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
    return connectionTo(server, database).ask(keys, answer);
  }

  @Override
  public void touch(RedisEndpoint node, int database, List<byte[]> keys) {
    RedisEndpoint server = override != null ? override : node;
    if (server != null) {
      connectionTo(server, database).touch(keys);
    }
  }

  private OwnNodeConnection connectionTo(RedisEndpoint server, int database) {
    String name = server.host() + ":" + server.port() + "/" + database;
    OwnNodeConnection connection = nodes.get(name);
    if (connection == null) {
      connection =
          nodes.computeIfAbsent(name, n -> new OwnNodeConnection(n, server.withDatabase(database)));
      connection.startOnce();
    }
    return connection;
  }
}
