package io.hotkey.agent.core;

import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;

/**
 * What the agent must know about one client connection (or one pooled client instance, whose
 * connections all share its configuration) to decide whether a read may be served locally: which
 * server and database it talks to and in which protocol (cached replies are only shared between
 * identical namespaces), and whether it is in a state where a local answer would be wrong (MULTI,
 * WATCH, client-side tracking, Pub/Sub).
 */
public final class ConnectionState {
  private static final AtomicLong INSTANCES = new AtomicLong();
  private static final String DEFAULT_USER = "default";

  /** Whether the connection's client module may serve in its class loader at all. */
  private final ServingPermit permit;

  private volatile String endpoint;
  private volatile String namespace;

  /** Set while a multiplexed connection has no channel: the namespace its entries are in. */
  private volatile String lostNamespace;

  private volatile long database;
  private volatile boolean resp3;

  /**
   * The ACL user the connection is authenticated as, part of the namespace: entries never cross
   * users.
   */
  private volatile String user = DEFAULT_USER;

  /**
   * The password of the last AUTH or HELLO AUTH sent: the agent's tracking connection to this
   * server logs in as the application does.
   */
  private volatile String password;

  /** The server this connection reads from, with its credentials; null until a fill asks. */
  private volatile RedisEndpoint node;

  private volatile boolean readOnly;

  /** An AUTH or HELLO was sent on this thread-bound connection and its reply is not read yet. */
  private volatile boolean identityUnconfirmed;

  private volatile boolean inMulti;
  private volatile boolean watching;
  private volatile boolean tracking;
  private volatile boolean subscribed;

  /**
   * Commands are buffered until the application flushes them (Lettuce's
   * setAutoFlushCommands(false)).
   */
  private volatile boolean manualFlush;

  /** Writes queued inside MULTI on a multiplexed connection: applied when EXEC's reply arrives. */
  private WriteSet queuedInTransaction;

  /**
   * The pooled client whose reads this connection filled: told when this connection's identity
   * changes.
   */
  private volatile ConnectionState owner;

  /** For a pooled client: the identity of the connections its entries were filled through. */
  private String memberIdentity;

  /**
   * The endpoint source of a connection that has no socket yet (a plain Jedis connects in its first
   * command): its read is neither served nor fills, and its server is learned at a later read,
   * unlike a client instance's ({@code null}), which gets a namespace of its own for good.
   */
  public static final Object NOT_CONNECTED = new Object();

  public ConnectionState(ServingPermit permit) {
    this.permit = permit;
  }

  /**
   * The namespace for cache keys, or null when this connection must not be served locally.
   *
   * @param endpointSource the connection's socket or remote address; null for a client instance or
   *     a multiplexed connection, which then gets a namespace of its own
   */
  public String servableNamespace(String client, Object endpointSource) {
    if (!permit.granted()
        || inMulti
        || watching
        || tracking
        || subscribed
        || manualFlush
        || identityUnconfirmed
        || endpointSource == NOT_CONNECTED) {
      return null;
    }
    String current = namespace;
    if (current == null) {
      if (endpoint == null) {
        endpoint =
            endpointSource == null
                ? "instance-" + INSTANCES.incrementAndGet()
                : describe(endpointSource);
        if (endpoint == null) {
          return null;
        }
      }
      current = client + "@" + endpoint + identity();
      namespace = current;
    }
    return current;
  }

  /**
   * Whether the connection may read messages that answer no command (client-side tracking's
   * invalidations, Pub/Sub's messages) between its replies.
   */
  public boolean readsPushes() {
    return tracking || subscribed;
  }

  /** The database the connection's commands run in. */
  public int database() {
    return (int) database;
  }

  /**
   * The server a reply on this connection comes from, as the agent's own connection would reach and
   * log in to it; null when {@code endpointSource} does not tell.
   */
  public RedisEndpoint node(Object endpointSource) {
    RedisEndpoint current = node;
    if (current == null) {
      RedisEndpoint server = serverAt(endpointSource);
      if (server == null) {
        return null;
      }
      current =
          server.withCredentials(
              password == null || DEFAULT_USER.equals(user) ? null : user, password);
      node = current;
    }
    return current;
  }

  /**
   * The server a socket or remote address leads to, without credentials; null when it does not
   * tell.
   */
  public static RedisEndpoint serverAt(Object endpointSource) {
    InetSocketAddress address = inetAddress(endpointSource);
    if (address == null) {
      return null;
    }
    if (endpointSource instanceof SSLSocket) {
      // TLS verifies the name the application connected to, not the address it resolved to
      return RedisEndpoint.of(address.getHostString(), address.getPort()).withTls(true);
    }
    return RedisEndpoint.of(hostOf(address), address.getPort());
  }

  private static String hostOf(InetSocketAddress address) {
    return address.getAddress() != null
        ? address.getAddress().getHostAddress()
        : address.getHostString();
  }

  /** Everything but the endpoint that decides what a read on this connection returns. */
  private String identity() {
    return "/db"
        + database
        + (resp3 ? "/resp3" : "/resp2")
        + "/user:"
        + user
        + (readOnly ? "/readonly" : "");
  }

  /**
   * For a pooled client's state, before a fill read through {@code member} is stored under this
   * client's namespace: true when the member has the identity of the connections earlier fills came
   * through. A member of another identity (the pool re-authenticated, or was reconfigured) moves
   * the client to a fresh namespace, so no earlier entry is served again, and its fill is dropped.
   */
  public boolean admitsFillThrough(ConnectionState member, String client, Object memberEndpoint) {
    if (member.servableNamespace(client, memberEndpoint) == null) {
      return false;
    }
    member.owner = this;
    String identity = member.identity();
    synchronized (this) {
      if (memberIdentity == null) {
        memberIdentity = identity;
        return true;
      }
      if (memberIdentity.equals(identity)) {
        return true;
      }
      memberIdentity = identity;
    }
    rescope();
    return false;
  }

  /**
   * The connection's entries are left behind: its next read starts a namespace no entry is in yet.
   */
  private void rescope() {
    if (endpoint != null && endpoint.startsWith("instance-")) {
      endpoint = null;
    }
    namespace = null;
    node = null;
  }

  /**
   * The reply of the last AUTH or HELLO sent was read: an error leaves the identity unknown, so
   * nothing is shared.
   */
  public void identityConfirmed(boolean failed) {
    if (failed) {
      user = "unconfirmed-" + INSTANCES.incrementAndGet();
      password = null;
      namespace = null;
      node = null;
    }
    identityUnconfirmed = false;
  }

  public boolean inMulti() {
    return inMulti;
  }

  public void setManualFlush(boolean manual) {
    manualFlush = manual;
  }

  public synchronized void queueInTransaction(WriteSet writes) {
    if (queuedInTransaction == null) {
      queuedInTransaction = new WriteSet();
    }
    writes.addTo(queuedInTransaction);
  }

  /** The writes queued since MULTI, now that EXEC (or DISCARD, RESET) is sent; null if none. */
  public synchronized WriteSet takeQueued() {
    WriteSet queued = queuedInTransaction;
    queuedInTransaction = null;
    return queued;
  }

  /**
   * Applies a command that changes the connection's session. A change of identity (user, database,
   * protocol, replica reads) rescopes the connection, and the pooled client it served, away from
   * the entries it filled so far.
   *
   * @param threadBound whether the reply will be read on the sending thread (Jedis): AUTH and HELLO
   *     then keep the connection from being served until it is ({@link #identityConfirmed})
   */
  public void onSessionCommand(CommandSpec.Session session, byte[][] argv, boolean threadBound) {
    switch (session) {
      case MULTI:
        inMulti = true;
        return;
      case EXEC:
      case DISCARD:
        inMulti = false;
        watching = false;
        return;
      case WATCH:
        watching = true;
        return;
      case UNWATCH:
        watching = false;
        return;
      case CLIENT_TRACKING:
        tracking =
            argv.length > 2
                && "ON".equalsIgnoreCase(new String(argv[2], StandardCharsets.US_ASCII));
        return;
      case SUBSCRIBE:
      case MONITOR:
        subscribed = true;
        return;
      case SELECT:
        database = argv.length > 1 ? parseLong(argv[1]) : database;
        break;
      case HELLO:
        if (argv.length > 1) {
          resp3 = parseLong(argv[1]) == 3;
        }
        for (int i = 2; i + 2 < argv.length; i++) {
          if ("AUTH".equalsIgnoreCase(new String(argv[i], StandardCharsets.US_ASCII))) {
            user = new String(argv[i + 1], StandardCharsets.UTF_8);
            password = new String(argv[i + 2], StandardCharsets.UTF_8);
          }
        }
        identityUnconfirmed = threadBound;
        break;
      case AUTH:
        user = argv.length > 2 ? new String(argv[1], StandardCharsets.UTF_8) : DEFAULT_USER;
        password =
            argv.length > 1 ? new String(argv[argv.length - 1], StandardCharsets.UTF_8) : null;
        identityUnconfirmed = threadBound;
        break;
      case READONLY:
        readOnly = true;
        break;
      case READWRITE:
        readOnly = false;
        break;
      case RESET:
        inMulti = false;
        watching = false;
        tracking = false;
        subscribed = false;
        resp3 = false;
        database = 0;
        user = DEFAULT_USER;
        password = null;
        readOnly = false;
        break;
      default:
        return;
    }
    rescope();
    ConnectionState pooledClient = owner;
    if (pooledClient != null) {
      pooledClient.rescope();
    }
  }

  /**
   * A multiplexed connection lost its channel: like {@link #onReset}, and until it has a channel
   * again its reads may be answered from the entries of the namespace it had ({@link
   * #namespaceBeforeLoss}).
   */
  public void onChannelLost() {
    String before = namespace;
    onReset();
    lostNamespace = before;
  }

  /** The namespace a connection without a channel had before it lost it; else null. */
  public String namespaceBeforeLoss() {
    return lostNamespace;
  }

  /**
   * The connection was closed, lost or reset underneath the application: whoever it is next, it
   * starts afresh.
   */
  public void onReset() {
    lostNamespace = null;
    rescope();
    ConnectionState pooledClient = owner;
    if (pooledClient != null) {
      pooledClient.rescope();
    }
  }

  private static long parseLong(byte[] digits) {
    try {
      return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      // an unparsable SELECT/HELLO makes the namespace unique, so nothing is shared with it
      return -1L - System.identityHashCode(digits);
    }
  }

  private static String describe(Object endpointSource) {
    InetSocketAddress inet = inetAddress(endpointSource);
    if (inet != null) {
      return hostOf(inet) + ":" + inet.getPort();
    }
    SocketAddress address = socketAddress(endpointSource);
    return address == null ? null : address.toString();
  }

  private static InetSocketAddress inetAddress(Object endpointSource) {
    SocketAddress address = socketAddress(endpointSource);
    return address instanceof InetSocketAddress ? (InetSocketAddress) address : null;
  }

  private static SocketAddress socketAddress(Object endpointSource) {
    if (endpointSource instanceof Socket) {
      return ((Socket) endpointSource).getRemoteSocketAddress();
    }
    return endpointSource instanceof SocketAddress ? (SocketAddress) endpointSource : null;
  }
}
