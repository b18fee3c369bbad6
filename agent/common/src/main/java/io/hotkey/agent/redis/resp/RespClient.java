package io.hotkey.agent.redis.resp;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The agent's own small Redis client (the application's Jedis/Lettuce are never used): a {@link
 * NodePool} of up to {@code poolSize} idle connections per node, which fails fast while its node is
 * down and probes it in the background every {@code downMillis}. Commands may be repeated on a new
 * connection when a pooled one turns out closed, so callers send only commands that are safe to
 * repeat.
 *
 * <p>It speaks to one server, or to a Redis Cluster found through it: the first {@code MOVED} reply
 * loads the slot map ({@code CLUSTER SLOTS}), after which {@link #eval} sends each script, and
 * {@link #callFor} each command about one key, to the master of its (first) key's slot (a script's
 * keys must share a slot: give them one hash tag). A {@code MOVED} reloads the map and retries
 * there, an {@code ASK} retries once on the importing node after {@code ASKING}, and a {@code
 * TRYAGAIN} (the keys are split by a slot migration) retries after a pause, all within the command
 * timeout.
 */
public final class RespClient implements AutoCloseable {
  private static final byte[] ASKING = RespConnection.bytes("ASKING");
  private static final byte[] CLUSTER = RespConnection.bytes("CLUSTER");
  private static final byte[] SLOTS = RespConnection.bytes("SLOTS");
  private static final int MAX_REDIRECTS = 16;
  private static final long TRY_AGAIN_PAUSE_MILLIS = 5;

  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final int poolSize;
  private final long downMillis;
  private final NodePool seed;
  private final Map<String, NodePool> nodes = new ConcurrentHashMap<>();

  /** The master of each slot once a MOVED showed a cluster; null for a single server. */
  private volatile NodePool[] slots;

  /**
   * @param downMillis how often a node that is down is probed; requests to it fail at once between
   *     probes
   */
  public RespClient(
      RedisEndpoint endpoint,
      int connectTimeoutMillis,
      int readTimeoutMillis,
      int poolSize,
      long downMillis) {
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.readTimeoutMillis = readTimeoutMillis;
    this.poolSize = poolSize;
    this.downMillis = downMillis;
    this.seed = node(endpoint);
  }

  /** One command to the server the endpoint names (a cluster's seed node). */
  public Object call(byte[]... args) throws IOException {
    return seed.execute(connection -> connection.call(args));
  }

  /**
   * EVALSHA, and EVAL when the server does not know the script (restart, SCRIPT FLUSH), on the node
   * that serves {@code keys[0]}.
   */
  public Object eval(LuaScript script, byte[][] keys, byte[]... args) throws IOException {
    return onNodeOf(
        keys.length == 0 ? null : keys[0],
        (node, asking) -> evalOn(node, asking, script, keys, args));
  }

  /** One command about {@code key}, on the node that serves it. */
  public Object callFor(byte[] key, byte[]... command) throws IOException {
    return onNodeOf(
        key, (node, asking) -> node.execute(connection -> send(connection, asking, command)));
  }

  /** A command sent to a node, after ASKING when {@code asking}. */
  private interface Send {
    Object to(NodePool node, boolean asking) throws IOException;
  }

  /** Sends to the master of {@code key}'s slot (the seed for none), following redirections. */
  private Object onNodeOf(byte[] key, Send send) throws IOException {
    NodePool[] map = slots;
    NodePool node = map == null || key == null ? seed : map[ClusterSlots.slot(key)];
    boolean asking = false;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
    for (int redirects = 0; ; redirects++) {
      Object reply = send.to(node == null ? seed : node, asking);
      if (!(reply instanceof RespError) || redirects == MAX_REDIRECTS) {
        return reply;
      }
      String error = ((RespError) reply).message();
      if (error.startsWith("MOVED ") || error.startsWith("ASK ")) {
        node = node(redirectTarget(error));
        asking = error.startsWith("ASK ");
        if (!asking) {
          loadSlots(node);
        }
      } else if (error.startsWith("TRYAGAIN") && System.nanoTime() < deadline) {
        pause();
      } else {
        return reply;
      }
    }
  }

  private static Object evalOn(
      NodePool node, boolean asking, LuaScript script, byte[][] keys, byte[]... args)
      throws IOException {
    return node.execute(
        connection -> {
          Object reply = send(connection, asking, script.command(true, keys, args));
          if (reply instanceof RespError && ((RespError) reply).isNoScript()) {
            reply = send(connection, asking, script.command(false, keys, args));
          }
          return reply;
        });
  }

  /** The command, after ASKING in the same write when the slot is being imported. */
  private static Object send(RespConnection connection, boolean asking, byte[][] command)
      throws IOException {
    if (!asking) {
      return connection.call(command);
    }
    connection.send(ASKING);
    connection.send(command);
    connection.read();
    return connection.read();
  }

  /** Replaces the slot map with the one {@code node} reports. */
  private void loadSlots(NodePool node) throws IOException {
    Object reply = node.execute(connection -> connection.call(CLUSTER, SLOTS));
    List<ClusterSlots.Range> ranges;
    try {
      ranges = ClusterSlots.parse(reply, node.endpoint.host());
    } catch (RuntimeException e) {
      throw new IOException("unreadable CLUSTER SLOTS reply from " + node.endpoint, e);
    }
    NodePool[] map = new NodePool[ClusterSlots.COUNT];
    for (ClusterSlots.Range range : ranges) {
      NodePool master = node(seed.endpoint.at(range.host, range.port));
      for (int slot = range.first; slot <= range.last; slot++) {
        map[slot] = master;
      }
    }
    slots = map;
  }

  private NodePool node(RedisEndpoint endpoint) {
    return nodes.computeIfAbsent(
        endpoint.host() + ":" + endpoint.port(),
        address ->
            new NodePool(endpoint, connectTimeoutMillis, readTimeoutMillis, poolSize, downMillis));
  }

  /** The node of {@code MOVED <slot> <host>:<port>} or {@code ASK <slot> <host>:<port>}. */
  private RedisEndpoint redirectTarget(String error) throws IOException {
    String address = error.substring(error.lastIndexOf(' ') + 1);
    int colon = address.lastIndexOf(':');
    try {
      return seed.endpoint.at(
          address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new IOException("unreadable redirection: " + error, e);
    }
  }

  private static void pause() throws IOException {
    try {
      Thread.sleep(TRY_AGAIN_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while a slot migrates", e);
    }
  }

  /** Whether the node the endpoint names is down now (being probed). */
  public boolean isDown() {
    return seed.isDown();
  }

  @Override
  public void close() {
    nodes.values().forEach(NodePool::close);
  }
}
