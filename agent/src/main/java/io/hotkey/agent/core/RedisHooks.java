package io.hotkey.agent.core;

import io.hotkey.agent.cache.Resumption;
import java.util.List;

/**
 * The only entry points instrumentation advice calls. Each one is a no-op until the agent is
 * active, and none lets a failure escape: the client's own code then runs exactly as without the
 * agent. Parameters are client-neutral so advice can live in any class loader that sees this class.
 */
public final class RedisHooks {
  /**
   * {@link #dispatch}'s {@code argCount} when {@code encodedArgs} is the command's only argument,
   * unframed.
   */
  public static final int ONE_RAW_ARGUMENT = -1;

  private static volatile RedisGateway gateway;

  private RedisHooks() {}

  public static void activate(RedisGateway active) {
    gateway = active;
  }

  /** Whether the hooks do anything: advice skips preparing arguments for an inactive agent. */
  public static boolean active() {
    return gateway != null;
  }

  public static void onSend(Object connection, Object arguments, byte[][] argv) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onSend(connection, arguments, argv);
    } catch (Throwable t) {
      g.errors().record("command send", t);
    }
  }

  public static void onSendFailed(Object connection) {
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
   * A multiplexed connection lost its channel or got a new one (a reconnect, whose handshake may
   * authenticate otherwise): its reads start a namespace of their own.
   */
  public static void onConnectionReset(Object connection) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onConnectionReset(connection);
    } catch (Throwable t) {
      g.errors().record("connection reset", t);
    }
  }

  public static ServedReply beginRead(
      String client, Object connection, Object endpointSource, Object arguments, byte[][] argv) {
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onRawReply(raw);
    } catch (Throwable t) {
      g.errors().record("reply capture", t);
    }
  }

  public static void endRead(boolean failed) {
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
    if (g != null) {
      g.errors().record("decoding a local reply", cause);
    }
  }

  // Per-command path (multiplexed clients: Lettuce). See RedisGateway#dispatch.

  /**
   * Returns a recorded reply to replay into the command's reply object instead of sending it,
   * {@link ReplyTape#PARKED} when the command must not be sent because it will be resumed later
   * (see {@link #commandDone}), or null.
   */
  public static ReplyTape.Cursor dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[] name,
      java.nio.ByteBuffer encodedArgs,
      int argCount,
      boolean neverServe) {
    RedisGateway g = gateway;
    if (g == null) {
      return null;
    }
    try {
      return g.dispatch(
          client, connection, command, reply, name, encodedArgs, argCount, neverServe);
    } catch (Throwable t) {
      g.errors().record("command dispatch", t);
      return null;
    }
  }

  /**
   * {@link #dispatch(String, Object, Object, Object, byte[], java.nio.ByteBuffer, int, boolean)} of
   * a command already split into its name and arguments, kept as given.
   */
  public static ReplyTape.Cursor dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[][] argv,
      boolean neverServe) {
    RedisGateway g = gateway;
    if (g == null) {
      return null;
    }
    try {
      return g.dispatch(client, connection, command, reply, argv, neverServe);
    } catch (Throwable t) {
      g.errors().record("command dispatch", t);
      return null;
    }
  }

  public static void manualFlush(Object connection, boolean manual) {
    RedisGateway g = gateway;
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
  public static void replyBytes(Object reply, java.nio.ByteBuffer bytes, boolean bigNumber) {
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
   * @param method the decoder method opening an array, a set or a map
   */
  public static void replyAggregate(Object reply, String method, int count) {
    RedisGateway g = gateway;
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
    RedisGateway g = gateway;
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
   * Checked first by a dispatch: for a parked read being resumed (see {@link #commandDone}), the
   * answer to replay or {@link ReplyTape#SEND}; null for any other command.
   */
  public static ReplyTape.Cursor resumption(Object command) {
    RedisGateway g = gateway;
    if (g == null) {
      return null;
    }
    try {
      return g.resumption(command);
    } catch (Throwable t) {
      g.errors().record("resuming a parked read", t);
      return ReplyTape.SEND;
    }
  }

  /** See {@link #commandDone}. */
  public static void resume(Resumption read) {
    RedisGateway g = gateway;
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
