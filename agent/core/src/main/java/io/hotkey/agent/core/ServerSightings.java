package io.hotkey.agent.core;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The servers the application's clients talk to, each as the agent's own connection would reach and
 * log in to it (the latest login seen for an address wins): where fleet detection finds the
 * application's Redis when no URI names it. Clients report a connection's server once per identity,
 * so this costs their threads nothing per command.
 */
public final class ServerSightings {
  /** Bounds what an application with very many servers makes the agent keep. */
  private static final int MOST_KEPT = 256;

  private final ConcurrentHashMap<String, RedisEndpoint> servers = new ConcurrentHashMap<>();
  private final AtomicLong addresses = new AtomicLong();

  public void sighted(RedisEndpoint server) {
    if (server == null) {
      return;
    }
    String address = server.host() + ":" + server.port();
    if (!servers.containsKey(address) && servers.size() >= MOST_KEPT) {
      return;
    }
    if (servers.put(address, server) == null) {
      addresses.incrementAndGet();
    }
  }

  /** The servers sighted so far, one per address. */
  public List<RedisEndpoint> servers() {
    return new ArrayList<>(servers.values());
  }

  /** How many addresses were sighted: it changes only when a new one is. */
  public long addresses() {
    return addresses.get();
  }
}
