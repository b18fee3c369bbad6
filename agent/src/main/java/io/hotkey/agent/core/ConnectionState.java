package io.hotkey.agent.core;

import io.hotkey.agent.redis.CommandSpec;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the agent must know about one client connection (or one pooled client instance, whose
 * connections all share its configuration) to decide whether a read may be served
 * locally: which server and database it talks to and in which protocol (cached replies are only
 * shared between identical namespaces), and whether it is in a state where a local answer would be
 * wrong (MULTI, WATCH, client-side tracking, Pub/Sub).
 */
final class ConnectionState {
  private static final AtomicLong INSTANCES = new AtomicLong();

  private volatile String endpoint;
  private volatile String namespace;
  private volatile long database;
  private volatile boolean resp3;
  private volatile boolean inMulti;
  private volatile boolean watching;
  private volatile boolean tracking;
  private volatile boolean subscribed;
  /** Commands are buffered until the application flushes them (Lettuce's setAutoFlushCommands(false)). */
  private volatile boolean manualFlush;
  /** Writes queued inside MULTI on a multiplexed connection: applied when EXEC's reply arrives. */
  private WriteSet queuedInTransaction;

  /**
   * The namespace for cache keys, or null when this connection must not be served locally.
   *
   * @param endpointSource the connection's socket or remote address; null for a client instance,
   *     which then gets a namespace of its own
   */
  String servableNamespace(String client, Object endpointSource) {
    if (inMulti || watching || tracking || subscribed || manualFlush) {
      return null;
    }
    String current = namespace;
    if (current == null) {
      if (endpoint == null) {
        endpoint = endpointSource == null ? "instance-" + INSTANCES.incrementAndGet() : describe(endpointSource);
        if (endpoint == null) {
          return null;
        }
      }
      current = client + "@" + endpoint + "/db" + database + (resp3 ? "/resp3" : "/resp2");
      namespace = current;
    }
    return current;
  }

  boolean inMulti() {
    return inMulti;
  }

  void setManualFlush(boolean manual) {
    manualFlush = manual;
  }

  synchronized void queueInTransaction(WriteSet writes) {
    if (queuedInTransaction == null) {
      queuedInTransaction = new WriteSet();
    }
    writes.addTo(queuedInTransaction);
  }

  /** The writes queued since MULTI, now that EXEC (or DISCARD, RESET) is sent; null if none. */
  synchronized WriteSet takeQueued() {
    WriteSet queued = queuedInTransaction;
    queuedInTransaction = null;
    return queued;
  }

  void onSessionCommand(CommandSpec.Session session, byte[][] argv) {
    switch (session) {
      case MULTI:
        inMulti = true;
        break;
      case EXEC:
      case DISCARD:
        inMulti = false;
        watching = false;
        break;
      case WATCH:
        watching = true;
        break;
      case UNWATCH:
        watching = false;
        break;
      case SELECT:
        database = argv.length > 1 ? parseLong(argv[1]) : database;
        break;
      case HELLO:
        if (argv.length > 1) {
          resp3 = parseLong(argv[1]) == 3;
        }
        break;
      case CLIENT_TRACKING:
        tracking = argv.length > 2 && "ON".equalsIgnoreCase(new String(argv[2], StandardCharsets.US_ASCII));
        break;
      case SUBSCRIBE:
      case MONITOR:
        subscribed = true;
        break;
      case RESET:
        inMulti = false;
        watching = false;
        tracking = false;
        subscribed = false;
        resp3 = false;
        database = 0;
        break;
      default:
        return;
    }
    namespace = null;
  }

  private static long parseLong(byte[] digits) {
    try {
      return Long.parseLong(new String(digits, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      // an unparsable SELECT/HELLO makes the namespace unique, so nothing is shared with it
      return -1 - System.identityHashCode(digits);
    }
  }

  private static String describe(Object endpointSource) {
    SocketAddress address = null;
    if (endpointSource instanceof Socket) {
      address = ((Socket) endpointSource).getRemoteSocketAddress();
    } else if (endpointSource instanceof SocketAddress) {
      address = (SocketAddress) endpointSource;
    }
    if (address instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) address;
      String host = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
      return host + ":" + inet.getPort();
    }
    return address == null ? null : address.toString();
  }
}
