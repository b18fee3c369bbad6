package io.hotkey.agent.fleet;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.ServerSightings;
import io.hotkey.agent.redis.resp.ClusterSlots;
import io.hotkey.agent.redis.resp.InfoReply;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where the fleet's counts are kept: the server a URI names, or else the one Redis deployment the
 * application's clients were seen using ({@link ServerSightings}), reached and logged in to as the
 * client reaches it. A deployment is one standalone master with its replicas (a Sentinel-managed
 * one too: sentinels themselves are skipped), or one Cluster; servers are told apart by asking
 * each, on the fleet's thread, {@code INFO} and, for a Cluster node, {@code CLUSTER SLOTS}. With
 * several deployments fleet detection stays off, saying once which key to set.
 */
public final class FleetRedis {
  /** The key that names the fleet's Redis, for the log line that asks for it. */
  static final String URI_KEY = "hotkey.fleet.redis.uri";

  private static final int PROBE_TIMEOUT_MILLIS = 2_000;

  private final RedisEndpoint named;
  private final ServerSightings sightings;

  /** The sightings' address count when last resolved; -1: resolve at the next call. */
  private long resolvedAt = -1;

  private RedisEndpoint chosen;

  /** What the last log line said, so that each outcome is logged once. */
  private String logged = "";

  private FleetRedis(RedisEndpoint named, ServerSightings sightings) {
    this.named = named;
    this.sightings = sightings;
  }

  /** The server a URI names (any node of a Cluster). */
  public static FleetRedis named(RedisEndpoint server) {
    return new FleetRedis(server, null);
  }

  /** The one deployment among the servers the application's clients talk to. */
  public static FleetRedis discovered(ServerSightings sightings) {
    return new FleetRedis(null, sightings);
  }

  /**
   * The server to exchange with now: null while none is known, or while the application uses
   * several deployments. Called on the fleet's thread only; asks newly sighted servers what they
   * are.
   */
  RedisEndpoint current() {
    if (named != null) {
      return named;
    }
    long addresses = sightings.addresses();
    if (addresses == resolvedAt) {
      return chosen;
    }
    resolvedAt = addresses;
    Map<String, RedisEndpoint> deployments = new LinkedHashMap<>();
    for (RedisEndpoint server : sightings.servers()) {
      try {
        Deployment deployment = probe(server);
        if (deployment != null) {
          deployments.putIfAbsent(deployment.name, deployment.endpoint);
        }
      } catch (IOException | RuntimeException e) {
        // unreachable or refusing now: asked again at the next call
        resolvedAt = -1;
      }
    }
    if (deployments.size() == 1) {
      Map.Entry<String, RedisEndpoint> only = deployments.entrySet().iterator().next();
      chosen = only.getValue();
      log(
          "fleet counts go to "
              + only.getKey()
              + ", the one Redis deployment the application uses, logged in as its client",
          false);
    } else if (deployments.size() > 1) {
      chosen = null;
      log(
          "fleet detection is off: the application uses "
              + deployments.size()
              + " Redis deployments ("
              + String.join(", ", deployments.keySet())
              + "); set "
              + URI_KEY
              + " to the one every instance shares",
          true);
    }
    return chosen;
  }

  private void log(String line, boolean warn) {
    if (!line.equals(logged)) {
      logged = line;
      if (warn) {
        AgentLog.warn(line);
      } else {
        AgentLog.info(line);
      }
    }
  }

  /** Which deployment {@code server} belongs to; null for a sentinel. */
  private static Deployment probe(RedisEndpoint server) throws IOException {
    try (RespConnection connection =
        new RespConnection(server, PROBE_TIMEOUT_MILLIS, PROBE_TIMEOUT_MILLIS)) {
      Map<String, String> info = info(connection, "server");
      String mode = info.getOrDefault("redis_mode", "standalone");
      if (mode.equals("sentinel")) {
        return null;
      }
      if (mode.equals("cluster")) {
        Object slots = connection.call(bytes("CLUSTER"), bytes("SLOTS"));
        TreeSet<String> masters = new TreeSet<>();
        for (ClusterSlots.Range range : ClusterSlots.parse(slots, server.host())) {
          masters.add(range.host + ":" + range.port);
        }
        return new Deployment("the Cluster of " + String.join(", ", masters), server);
      }
      Map<String, String> replication = info(connection, "replication");
      String masterHost = replication.get("master_host");
      if ("slave".equals(replication.get("role")) && masterHost != null) {
        int masterPort = Integer.parseInt(replication.get("master_port"));
        return new Deployment(
            "the server " + masterHost + ":" + masterPort, server.at(masterHost, masterPort));
      }
      return new Deployment("the server " + server.host() + ":" + server.port(), server);
    }
  }

  private static Map<String, String> info(RespConnection connection, String section)
      throws IOException {
    Object reply = connection.call(bytes("INFO"), bytes(section));
    if (!(reply instanceof byte[])) {
      throw new IOException("INFO " + section + " answered " + reply);
    }
    return InfoReply.fields(reply);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A deployment's name and the endpoint the fleet reaches it through. */
  private static final class Deployment {
    final String name;
    final RedisEndpoint endpoint;

    Deployment(String name, RedisEndpoint endpoint) {
      this.name = name;
      this.endpoint = endpoint;
    }
  }

  @Override
  public String toString() {
    return named != null ? named.toString() : "the application's Redis";
  }
}
