package io.hotkey.agent.core;

import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.multiplexed.DispatchOutcome;
import io.hotkey.agent.core.multiplexed.LocalAnswerCheck;
import io.hotkey.agent.core.multiplexed.MultiplexedGateway;
import io.hotkey.agent.core.multiplexed.ReplyTape;
import io.hotkey.agent.core.threadbound.ThreadBoundGateway;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.net.PasswordAuthentication;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLSocketFactory;

/**
 * The entry points instrumentation advice calls. Each one is a no-op until the agent is active, and
 * none lets a failure escape: the client's own code then runs exactly as without the agent.
 * Parameters are client-neutral so advice can live in any class loader that sees this class. Each
 * hook goes to the gateway of its protocol: thread-bound clients' (Jedis) to {@link
 * ThreadBoundGateway}, multiplexed clients' (Lettuce) to {@link MultiplexedGateway}; those for
 * Lettuce reads that fail after they were sent are in {@link FailedReadHooks}.
 */
public final class RedisHooks {
  /**
   * {@link #dispatch}'s {@code argCount} when {@code encodedArgs} is the command's only argument,
   * unframed.
   */
  public static final int ONE_RAW_ARGUMENT = -1;

  // one field per gateway, so that a hook reads the gateway it calls and nothing else
  private static volatile ThreadBoundGateway threadBound;
  private static volatile MultiplexedGateway multiplexed;
  private static volatile ServerSightings sightings;

  private RedisHooks() {}

  /** Points the hooks at the agent's gateways; null makes them no-ops again. */
  public static void activate(RedisGateway active) {
    threadBound = active == null ? null : active.threadBound();
    multiplexed = active == null ? null : active.multiplexed();
    sightings = active == null ? null : active.sightings();
  }

  /** The multiplexed clients' gateway, for {@link FailedReadHooks}; null while inactive. */
  static MultiplexedGateway multiplexed() {
    return multiplexed;
  }

  /** Whether the hooks do anything: advice skips preparing arguments for an inactive agent. */
  public static boolean active() {
    return multiplexed != null;
  }

  /**
   * A thread-bound client is about to send a command ({@link ThreadBoundGateway#onSend}).
   *
   * @param socket the connection's socket, null when it has none yet
   */
  public static void onSend(Object connection, Object socket, Object arguments, byte[][] argv) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onSend(connection, socket, arguments, argv);
    } catch (Throwable t) {
      g.errors().record("command send", t);
    }
  }

  public static void onSendFailed(Object connection) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onSendFailed(connection);
    } catch (Throwable t) {
      g.errors().record("failed send", t);
    }
  }

  public static void onReplyRead(Object connection, ReplyOutcome outcome) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onReplyRead(connection, outcome);
    } catch (Throwable t) {
      g.errors().record("reply read", t);
    }
  }

  /** A thread-bound connection was closed, disconnected or returned to its pool. */
  public static void onConnectionClosed(Object connection) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onConnectionClosed(connection);
    } catch (Throwable t) {
      g.errors().record("connection close", t);
    }
  }

  /**
   * A thread-bound connection's socket was closed, and its next one starts a new session (see
   * {@link ThreadBoundGateway#onSessionEnded}).
   */
  public static void onSessionEnded(Object connection) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onSessionEnded(connection);
    } catch (Throwable t) {
      g.errors().record("connection close", t);
    }
  }

  public static ServedReply beginRead(
      String client, Object connection, Object endpointSource, Object arguments, byte[][] argv) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return null;
    }
    try {
      return g.beginRead(client, connection, endpointSource, arguments, argv);
    } catch (Throwable t) {
      g.errors().record("local read", t);
      return null;
    }
  }

  public static void onRawReply(Object raw) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.onRawReply(raw);
    } catch (Throwable t) {
      g.errors().record("reply capture", t);
    }
  }

  /**
   * The read {@link #beginRead} let through failed on its connection: a value to answer it with
   * instead, or null to let the failure through. Before {@link #endRead}.
   */
  public static ServedReply staleRead(Throwable failure) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return null;
    }
    try {
      return g.staleRead(failure);
    } catch (Throwable t) {
      g.errors().record("stale read", t);
      return null;
    }
  }

  public static void endRead(boolean failed) {
    ThreadBoundGateway g = threadBound;
    if (g == null) {
      return;
    }
    try {
      g.endRead(failed);
    } catch (Throwable t) {
      g.errors().record("cache fill", t);
    }
  }

  /**
   * The adapter could not decode a locally served reply; the command runs against Redis instead.
   */
  public static void servedReplyRejected(Throwable cause) {
    ThreadBoundGateway g = threadBound;
    if (g != null) {
      g.errors().record("decoding a local reply", cause);
    }
  }

  // Multiplexed clients (Lettuce): see MultiplexedGateway.

  /**
   * The application's tracing refused the span of a read the agent answered locally; the read is
   * answered all the same, without its span.
   */
  public static void localAnswerSpanFailed(Throwable cause) {
    MultiplexedGateway g = multiplexed;
    if (g != null) {
      g.errors().record("tracing a locally answered read", cause);
    }
  }

  /**
   * A multiplexed connection lost its channel or got a new one (a reconnect, whose handshake may
   * authenticate otherwise): its reads start a namespace of their own.
   */
  public static void onConnectionReset(Object connection, boolean channelLost) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onConnectionReset(connection, channelLost);
    } catch (Throwable t) {
      g.errors().record("connection reset", t);
    }
  }

  /**
   * A command is about to be dispatched to a multiplexed connection: returns whether to send it,
   * leave it unsent because it was parked (it is resumed later, see {@link #commandDone}), or
   * replay a recorded reply into its reply object (see {@link DispatchOutcome}).
   */
  public static DispatchOutcome dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[] name,
      ByteBuffer encodedArgs,
      int argCount,
      LocalAnswerCheck answerable) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return DispatchOutcome.SEND;
    }
    try {
      return g.dispatch(
          client, connection, command, reply, name, encodedArgs, argCount, answerable);
    } catch (Throwable t) {
      g.errors().record("command dispatch", t);
      return DispatchOutcome.SEND;
    }
  }

  /**
   * {@link #dispatch(String, Object, Object, Object, byte[], ByteBuffer, int, LocalAnswerCheck)} of
   * a command already split into its name and arguments, kept as given.
   */
  public static DispatchOutcome dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[][] argv,
      LocalAnswerCheck answerable) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return DispatchOutcome.SEND;
    }
    try {
      return g.dispatch(client, connection, command, reply, argv, answerable);
    } catch (Throwable t) {
      g.errors().record("command dispatch", t);
      return DispatchOutcome.SEND;
    }
  }

  /**
   * A command {@link #dispatch} answered {@link DispatchOutcome#SEND_REPORTING_SERVER} for is
   * written to the connection of {@code server}: its remote address, or what {@link #channelServer}
   * or {@link #channelTlsServer} made of it.
   */
  public static void writtenTo(Object reply, Object server) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onWrittenTo(reply, server);
    } catch (Throwable t) {
      g.errors().record("command write", t);
    }
  }

  /**
   * The server a multiplexed client's channel is connected to (its remote address), as the client
   * logs in to it: the agent's own connection to that server logs in with what {@code credentials}
   * answers when it opens (on the agent's thread; null: no login). Hand it to {@link #writtenTo}
   * for that channel's commands. Null when the address is no host and port.
   */
  public static RedisEndpoint channelServer(
      Object remoteAddress, Callable<PasswordAuthentication> credentials) {
    RedisEndpoint server = ConnectionState.serverAt(remoteAddress);
    return sighted(server == null ? null : server.withCredentialsFrom(credentials));
  }

  /**
   * {@link #channelServer} for a channel over TLS: the agent's connection reaches {@code host} (the
   * name the client checks the certificate against) over TLS with the sockets {@code sockets} makes
   * (null: the JVM's default), checking the host name only if {@code verifyHostName}.
   */
  public static RedisEndpoint channelTlsServer(
      Object remoteAddress,
      String host,
      boolean verifyHostName,
      Callable<SSLSocketFactory> sockets,
      Callable<PasswordAuthentication> credentials) {
    RedisEndpoint server = ConnectionState.serverAt(remoteAddress);
    if (server == null) {
      return null;
    }
    return sighted(
        RedisEndpoint.of(host == null ? server.host() : host, server.port())
            .withTls(sockets, verifyHostName)
            .withCredentialsFrom(credentials));
  }

  /** A channel's server, described once per connection, is one the application uses. */
  private static RedisEndpoint sighted(RedisEndpoint server) {
    ServerSightings s = sightings;
    if (s != null) {
      s.sighted(server);
    }
    return server;
  }

  public static void manualFlush(Object connection, boolean manual) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onManualFlush(connection, manual);
    } catch (Throwable t) {
      g.errors().record("flush mode", t);
    }
  }

  /**
   * The decoder handed {@code reply} a bulk string, a simple string or nil ({@code bigNumber}: a
   * RESP3 big number).
   */
  public static void replyBytes(Object reply, ByteBuffer bytes, boolean bigNumber) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onReplyBytes(reply, bytes, bigNumber);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  public static void replyError(Object reply) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onReplyError(reply);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  public static void replyLong(Object reply, long value) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onReplyLong(reply, value);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  public static void replyDouble(Object reply, double value) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onReplyDouble(reply, value);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  public static void replyBoolean(Object reply, boolean value) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.onReplyBoolean(reply, value);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  /**
   * Records the start of an aggregate in a reply being decoded.
   *
   * @param method the decoder method opening an array, a set or a map
   */
  public static void replyAggregate(Object reply, String method, int count) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      int op =
          method.endsWith("Map")
              ? ReplyTape.OP_MAP
              : method.endsWith("Set") ? ReplyTape.OP_SET : ReplyTape.OP_ARRAY;
      g.onReplyAggregate(reply, op, count);
    } catch (Throwable t) {
      g.errors().record("reply event", t);
    }
  }

  /**
   * The command owning {@code reply} ended. Returns the reads parked behind it that can now go on,
   * in the order they were parked, often none: the adapter dispatches each one's command again on
   * its connection between {@code resume(read)} and {@code resume(null)}, and that dispatch answers
   * it or sends it to Redis.
   */
  public static List<Resumption> commandDone(Object reply) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return List.of();
    }
    try {
      return g.onCommandDone(reply);
    } catch (Throwable t) {
      g.errors().record("command end", t);
      return List.of();
    }
  }

  /**
   * Checked first by a dispatch: for a parked read being resumed (see {@link #commandDone}), what
   * to do with it, a replay of its answer or {@link DispatchOutcome#SEND} (also when {@code
   * answerable} says its connection would not send it now); null for any other command, which is
   * then dispatched as new.
   */
  public static DispatchOutcome resumption(Object command, LocalAnswerCheck answerable) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return null;
    }
    try {
      return g.resumption(command, answerable);
    } catch (Throwable t) {
      g.errors().record("resuming a parked read", t);
      return DispatchOutcome.SEND;
    }
  }

  /** See {@link #commandDone}. */
  public static void resume(Resumption read) {
    MultiplexedGateway g = multiplexed;
    if (g == null) {
      return;
    }
    try {
      g.resume(read);
    } catch (Throwable t) {
      g.errors().record("resuming a parked read", t);
    }
  }
}
