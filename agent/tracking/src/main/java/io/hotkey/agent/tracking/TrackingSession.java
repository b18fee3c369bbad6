package io.hotkey.agent.tracking;

import io.hotkey.agent.redis.resp.InfoReply;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespError;
import io.hotkey.agent.redis.resp.RespPush;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The agent's own connection(s) to one server for {@code CLIENT TRACKING ... BCAST}: with RESP3 one
 * connection that receives both replies and {@code invalidate} pushes; without it (a server or
 * proxy that refuses {@code HELLO 3}) a second connection subscribed to {@code
 * __redis__:invalidate} that the first one's tracking is redirected to. Every message becomes
 * {@link Listener} calls, on the thread that read it: the invalidation connection is read by an
 * {@link InvalidationDrain} (its own reader thread, or a thread about to serve a hit), or, over
 * TLS, by a reader thread blocking on the socket. Anything that breaks the stream marks the session
 * broken, and the {@link NodeTracker} that owns it treats that as a gap.
 */
final class TrackingSession implements AutoCloseable {
  static final String CLIENT_NAME = "hotkey-agent";
  static final int TIMEOUT_MILLIS = 1000;
  private static final byte[] INVALIDATE_CHANNEL = bytes("__redis__:invalidate");
  private static final Object BROKEN = new Object();

  /**
   * What the server reports; called on the thread that read it, one message at a time, in order.
   */
  interface Listener {
    void onInvalidated(List<byte[]> keys);

    /** FLUSHALL, FLUSHDB, or anything else after which every key may have changed. */
    void onFlushed();

    /**
     * The stream broke (not closed by the agent): changes may go unreported from now on. Called on
     * the thread that noticed, the moment it does, not at the tracker's next look.
     */
    void onBroken(String reason);
  }

  private final String node;
  private final Listener listener;
  private final RespConnection tracking;

  /** The connection the invalidations come on: {@link #tracking} itself with RESP3. */
  private final RespConnection invalidations;

  private final long redirectId;
  private final InvalidationDrains drains;

  /** Reads {@link #invalidations}; null over TLS, whose socket has no non-blocking channel. */
  private InvalidationDrain drain;

  private final LinkedBlockingQueue<Object> replies = new LinkedBlockingQueue<>();
  private volatile String brokenBecause;
  private volatile long lastHeardNanos = System.nanoTime();

  /** RESP2: when the subscriber's oldest PING not followed by any message was sent. */
  private long unansweredSinceNanos;

  private boolean unansweredPing;

  private TrackingSession(
      String node,
      Listener listener,
      RespConnection tracking,
      RespConnection invalidations,
      long redirectId,
      InvalidationDrains drains) {
    this.node = node;
    this.listener = listener;
    this.tracking = tracking;
    this.invalidations = invalidations;
    this.redirectId = redirectId;
    this.drains = drains;
  }

  /**
   * Connects and prepares tracking (nothing is tracked until {@link #addPrefixes}); the
   * invalidation connection is drained through {@code drains} unless it is TLS.
   */
  static TrackingSession open(RedisEndpoint endpoint, Listener listener, InvalidationDrains drains)
      throws IOException, TrackingRefused {
    String node = endpoint.host() + ":" + endpoint.port();
    RespConnection main = connect(endpoint);
    try {
      Object hello = main.call(bytes("HELLO"), bytes("3"));
      TrackingSession session;
      if (!(hello instanceof RespError)) {
        main.readTimeout(0);
        session = new TrackingSession(node, listener, main, main, -1, drains);
        session.startReader(main, node);
        return session;
      }
      RespConnection subscriber = connect(endpoint);
      try {
        Object id = subscriber.call(bytes("CLIENT"), bytes("ID"));
        if (!(id instanceof Long)) {
          throw TrackingRefused.answered("CLIENT ID", id);
        }
        Object subscribed = subscriber.call(bytes("SUBSCRIBE"), INVALIDATE_CHANNEL);
        if (subscribed instanceof RespError) {
          throw TrackingRefused.answered("SUBSCRIBE __redis__:invalidate", subscribed);
        }
        subscriber.readTimeout(0);
        session = new TrackingSession(node, listener, main, subscriber, (Long) id, drains);
        session.startReader(subscriber, node);
        return session;
      } catch (IOException | TrackingRefused | RuntimeException e) {
        subscriber.close();
        throw e;
      }
    } catch (IOException | TrackingRefused | RuntimeException e) {
      main.close();
      throw e;
    }
  }

  private static RespConnection connect(RedisEndpoint endpoint)
      throws IOException, TrackingRefused {
    RespConnection connection;
    try {
      connection = new RespConnection(endpoint, TIMEOUT_MILLIS, TIMEOUT_MILLIS, true);
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("Redis AUTH failed")) {
        throw TrackingRefused.login(e.getMessage());
      }
      throw e;
    }
    try {
      Object named = connection.call(bytes("CLIENT"), bytes("SETNAME"), bytes(CLIENT_NAME));
      if (named instanceof RespError) {
        throw TrackingRefused.answered("CLIENT SETNAME", named);
      }
      return connection;
    } catch (IOException | TrackingRefused | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  boolean resp3() {
    return redirectId < 0;
  }

  /**
   * Adds broadcast prefixes; returns once Redis acknowledged them, so that every write applied from
   * then on to a key they cover is reported.
   */
  void addPrefixes(List<byte[]> prefixes) throws IOException, TrackingRefused {
    int fixed = resp3() ? 4 : 6;
    byte[][] command = new byte[fixed + 2 * prefixes.size()][];
    command[0] = bytes("CLIENT");
    command[1] = bytes("TRACKING");
    command[2] = bytes("ON");
    command[3] = bytes("BCAST");
    if (!resp3()) {
      command[4] = bytes("REDIRECT");
      command[5] = bytes(Long.toString(redirectId));
    }
    for (int i = 0; i < prefixes.size(); i++) {
      command[fixed + 2 * i] = bytes("PREFIX");
      command[fixed + 2 * i + 1] = prefixes.get(i);
    }
    Object reply = call(command);
    if (reply instanceof RespError) {
      throw TrackingRefused.answered("CLIENT TRACKING", reply);
    }
  }

  /**
   * The server's {@code tracking_clients} ({@code INFO clients}); empty when it does not say (an
   * ACL without {@code INFO}, a server without the field).
   */
  OptionalLong trackingClients() throws IOException {
    String clients =
        InfoReply.fields(call(bytes("INFO"), bytes("clients"))).get("tracking_clients");
    try {
      return clients == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(clients));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Checks that both directions are alive: a PING answered within the timeout on the tracking
   * connection; on RESP2 a PING sent on the subscriber too, which must have heard something within
   * three timeouts of its oldest PING not followed by any message.
   */
  void ping() throws IOException {
    Object pong = call(bytes("PING"));
    if (pong instanceof RespError) {
      throw new IOException("PING answered " + pong);
    }
    if (resp3()) {
      return;
    }
    long now = System.nanoTime();
    if (unansweredPing && lastHeardNanos - unansweredSinceNanos >= 0) {
      unansweredPing = false;
    }
    if (unansweredPing
        && now - unansweredSinceNanos > TimeUnit.MILLISECONDS.toNanos(3L * TIMEOUT_MILLIS)) {
      throw new IOException(
          "the invalidation connection answered no PING for " + 3 * TIMEOUT_MILLIS + " ms");
    }
    // in subscribed mode PING is answered as a message, which the reader takes as a sign of life
    invalidations.send(bytes("PING"));
    if (!unansweredPing) {
      unansweredPing = true;
      unansweredSinceNanos = now;
    }
  }

  private Object call(byte[]... command) throws IOException {
    if (!resp3()) {
      return tracking.call(command);
    }
    tracking.send(command);
    Object reply;
    try {
      reply = replies.poll(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    if (reply == null) {
      throw new IOException("no reply within " + TIMEOUT_MILLIS + " ms");
    }
    if (reply == BROKEN) {
      replies.offer(BROKEN);
      throw new IOException(brokenBecause);
    }
    return reply;
  }

  /** Why the invalidation stream broke, or null while it is intact. */
  String brokenBecause() {
    return brokenBecause;
  }

  private void startReader(RespConnection connection, String name) throws IOException {
    String threadName = "hotkey-tracking-reader-" + name;
    if (connection.channel() == null) {
      Thread reader = new Thread(() -> readBlocking(connection), threadName);
      reader.setDaemon(true);
      reader.start();
      return;
    }
    drain =
        drains.open(
            connection,
            new InvalidationDrain.Messages() {
              @Override
              public void onMessage(Object message) {
                TrackingSession.this.onMessage(message);
              }

              @Override
              public void onFailed(Exception failure) {
                onReadFailed(failure);
              }
            });
    drain.startReader(threadName);
  }

  private void readBlocking(RespConnection connection) {
    try {
      while (true) {
        onMessage(connection.read());
      }
    } catch (IOException | RuntimeException e) {
      onReadFailed(e);
    }
  }

  private void onMessage(Object message) {
    lastHeardNanos = System.nanoTime();
    if (message instanceof RespPush) {
      onPush(((RespPush) message).kind(), ((RespPush) message).items());
    } else if (resp3()) {
      replies.offer(message);
    } else if (message instanceof List) {
      onSubscriberMessage((List<?>) message);
    }
  }

  private void onReadFailed(Exception e) {
    boolean closedByTheAgent;
    synchronized (this) {
      closedByTheAgent = brokenBecause != null;
      if (!closedByTheAgent) {
        brokenBecause = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      }
    }
    replies.offer(BROKEN);
    if (!closedByTheAgent) {
      listener.onBroken(brokenBecause);
    }
  }

  private void onPush(String kind, List<Object> items) {
    if ("invalidate".equals(kind) && items.size() > 1) {
      onInvalidation(items.get(1));
    }
  }

  /**
   * RESP2 redirect: {@code message __redis__:invalidate <keys>}, or {@code pong} in answer to PING.
   */
  private void onSubscriberMessage(List<?> items) {
    if (items.size() == 3 && "message".equals(text(items.get(0)))) {
      onInvalidation(items.get(2));
    }
  }

  @SuppressWarnings("unchecked")
  private void onInvalidation(Object keys) {
    if (keys == null) {
      listener.onFlushed();
    } else if (keys instanceof List) {
      listener.onInvalidated((List<byte[]>) keys);
    } else if (keys instanceof byte[]) {
      listener.onInvalidated(List.of((byte[]) keys));
    }
  }

  private static String text(Object item) {
    return item instanceof byte[]
        ? new String((byte[]) item, StandardCharsets.UTF_8)
        : String.valueOf(item);
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (brokenBecause == null) {
        brokenBecause = "closed by the agent";
      }
    }
    if (drain != null) {
      drains.close(drain);
    }
    tracking.close();
    invalidations.close();
  }

  @Override
  public String toString() {
    return node + (resp3() ? " (RESP3)" : " (RESP2, redirected to client " + redirectId + ")");
  }
}
