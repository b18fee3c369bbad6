package io.hotkey.agent.core.threadbound;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.ClassifiedCommand;
import io.hotkey.agent.core.CommandClassifier;
import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.PerConnection;
import io.hotkey.agent.core.PlainSet;
import io.hotkey.agent.core.ReplyOutcome;
import io.hotkey.agent.core.ServedReply;
import io.hotkey.agent.core.ServerSightings;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.core.StaleAnswers;
import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * Where the adapters of thread-bound clients (Jedis) report what they see: the caller's thread
 * sends a command and reads its reply itself, so a call's state lives on its thread and a
 * connection's (what it sent and still waits for) on the connection.
 *
 * <p>Protocol of one locally servable read, as an adapter drives it: {@link #beginRead} (may answer
 * at once) → {@link #onSend} → {@link #onReplyRead} → {@link #onRawReply} → {@link #endRead}. Every
 * other command only passes {@link #onSend} and {@link #onReplyRead}; a connection ends with {@link
 * #onSendFailed} or {@link #onConnectionClosed}.
 */
public final class ThreadBoundGateway {
  private static final byte[][] NO_ARGUMENTS = new byte[0][];

  private final CommandClassifier classifier;
  private final NearCache cache;
  private final KeyVersions versions;
  private final ServerSightings sightings;

  /** Per connection (or pooled client): what it owes, and its state. */
  private final PerConnection<OwedReplies> connections;

  private final ThreadLocal<ThreadCallState> threads =
      ThreadLocal.withInitial(ThreadCallState::new);

  /**
   * @param sightings told each connection's server, with its login, at its first keyed command
   */
  public ThreadBoundGateway(
      CommandClassifier classifier,
      NearCache cache,
      KeyVersions versions,
      ServingGate serving,
      ServerSightings sightings) {
    this.classifier = classifier;
    this.cache = cache;
    this.versions = versions;
    this.sightings = sightings;
    this.connections =
        new PerConnection<>(c -> new OwedReplies(new ConnectionState(serving.permitFor(c))));
  }

  /**
   * A command is about to be written to a connection (pipelined and transactional ones included).
   *
   * @param socket the connection's socket, null when it has none yet
   */
  public void onSend(Object connection, Object socket, Object arguments, byte[][] argv) {
    ThreadCallState thread = threads.get();
    if (thread.fill != null && thread.fillArguments == arguments) {
      thread.fillSent = true;
    }
    OwedReplies owed = owedReplies(thread, connection);
    long place = owed.onSend();
    try {
      record(socket, arguments, argv, thread, owed, place);
    } catch (RuntimeException | Error e) {
      // the write, if it was one, can no longer be tied to its keys: invalidate everything once it
      // is applied
      owed.addWriteToEverything(place);
      throw e;
    }
  }

  private void record(
      Object socket,
      Object arguments,
      byte[][] argv,
      ThreadCallState thread,
      OwedReplies owed,
      long place) {
    classifier.maybeInjectFailure();
    // a command beginRead looked at is classified already
    ClassifiedCommand command =
        arguments != null && arguments == thread.readArguments
            ? thread.read
            : classifier.classify(argv, thread.sent);
    classifier.record(argv, command);
    if (socket != null && command.keyCount() > 0) {
      owed.sight(socket, sightings);
    }
    if (command.writes()) {
      for (int n = 0; n < command.keyCount(); n++) {
        owed.addWrite(place, command.hash(n));
      }
      if (command.writesEverything()) {
        owed.addWriteToEverything(place);
      }
      if (socket != null && PlainSet.matches(argv)) {
        expectEcho(socket, argv, command, owed, place);
      }
    }
    CommandSpec.Session session = command.spec().session(argv);
    if (session != CommandSpec.Session.NONE) {
      onSessionCommand(owed, place, session, argv);
    }
  }

  /**
   * A plain SET of a hot key expects tracking's report of it, to be applied with the key's
   * invalidation at its reply; not on a connection that may read messages in between its replies,
   * which would be taken for the SET's.
   */
  private void expectEcho(
      Object socket, byte[][] argv, ClassifiedCommand set, OwedReplies owed, long place) {
    if (!owed.takesEcho() || owed.connection().readsPushes() || !classifier.servable(argv, set)) {
      return;
    }
    RedisEndpoint server = ConnectionState.serverAt(socket);
    OwnWriteEcho echo = server == null ? null : cache.expectEcho(server, argv[1]);
    if (echo != null) {
      owed.expectEcho(place, echo);
    }
  }

  private static void onSessionCommand(
      OwedReplies owed, long place, CommandSpec.Session session, byte[][] argv) {
    if (session == CommandSpec.Session.MULTI) {
      owed.transactionStarted();
    } else if (session == CommandSpec.Session.EXEC
        || session == CommandSpec.Session.DISCARD
        || session == CommandSpec.Session.RESET) {
      owed.transactionEnded(place);
    } else if (session == CommandSpec.Session.AUTH || session == CommandSpec.Session.HELLO) {
      owed.identityChangeSent(place);
    }
    owed.connection().onSessionCommand(session, argv, true);
  }

  /**
   * A client thread mostly sends through one connection, so the last one's replies are kept on the
   * thread: sending and reading then skip the weak-keyed map lookup.
   */
  private OwedReplies owedReplies(ThreadCallState thread, Object connection) {
    if (thread.lastSent != connection) {
      thread.lastOwed = connections.get(connection);
      thread.lastSent = connection;
    }
    return thread.lastOwed;
  }

  /** {@link #owedReplies(ThreadCallState, Object)} for a hook that needs no other thread state. */
  private OwedReplies owedReplies(Object connection) {
    OwedReplies held = connections.held(connection);
    return held != null ? held : owedReplies(threads.get(), connection);
  }

  /** The connection's state, or null if it sent nothing the agent saw. */
  private OwedReplies owedIfPresent(Object connection) {
    OwedReplies held = connections.held(connection);
    if (held != null) {
      return held;
    }
    ThreadCallState thread = threads.get();
    return thread.lastSent == connection ? thread.lastOwed : connections.getIfPresent(connection);
  }

  /**
   * A client thread mostly reads through one client instance or connection, so the last one's state
   * is kept on the thread: a hit then skips the weak-keyed map lookup.
   */
  private ConnectionState connectionState(ThreadCallState thread, Object connection) {
    if (thread.lastConnection != connection) {
      thread.lastState = connections.get(connection).connection();
      thread.lastConnection = connection;
    }
    return thread.lastState;
  }

  /**
   * The send failed: the connection is broken, and whatever it sent may or may not have been
   * applied.
   */
  public void onSendFailed(Object connection) {
    owedReplies(connection).settleAll(versions);
  }

  /**
   * One reply was read from a connection, or the connection was lost. A write's keys' local entries
   * die once its own reply is read (see {@link OwedReplies}).
   */
  public void onReplyRead(Object connection, ReplyOutcome outcome) {
    OwedReplies owed = owedReplies(connection);
    if (outcome == ReplyOutcome.CONNECTION_LOST) {
      owed.settleAll(versions);
    } else {
      owed.onReply(outcome == ReplyOutcome.ERROR, versions);
    }
  }

  /**
   * A connection was closed, disconnected or handed back to its pool: the replies it still owed
   * will not be read, so the writes waiting for them invalidate now.
   */
  public void onConnectionClosed(Object connection) {
    OwedReplies owed = owedIfPresent(connection);
    if (owed != null) {
      owed.settleAll(versions);
    }
  }

  /**
   * A connection's socket was closed, and the connection opens a new one when it is used again
   * (Jedis 3, whose pools never close a connection they take back): besides {@link
   * #onConnectionClosed}, the next socket's session starts afresh, in database 0 as the default
   * user, until the commands it sends (the client's own AUTH and SELECT included) say otherwise.
   */
  public void onSessionEnded(Object connection) {
    OwedReplies owed = owedIfPresent(connection);
    if (owed != null) {
      owed.settleAll(versions);
      owed.connection().onSessionCommand(CommandSpec.Session.RESET, NO_ARGUMENTS, true);
    }
  }

  /**
   * Called before a synchronous command (send, then read its reply) runs. Returns a reply to hand
   * back without touching Redis, or null to run the command; in that case the thread may have been
   * chosen to fill the local entry with the reply it is about to read.
   *
   * @param client names the client library, whose raw reply representation the entry holds
   * @param endpointSource the connection's socket or address, or null when {@code connection} is a
   *     pooled client instance (its connections share one configuration)
   */
  public ServedReply beginRead(
      String client, Object connection, Object endpointSource, Object arguments, byte[][] argv) {
    ThreadCallState thread = threads.get();
    if (thread.readDepth++ > 0) {
      // an outer level of the same call already decided; the inner level only carries it out
      if (thread.fill != null && thread.fillClient != null) {
        ConnectionState borrowed = connections.get(connection).connection();
        if (thread.fillClient.admitsFillThrough(borrowed, client, endpointSource)) {
          thread.fill.readThrough(borrowed.node(endpointSource));
        } else {
          abandonFill(thread);
        }
      }
      return null;
    }
    abandonFill(thread);
    classifier.maybeInjectFailure();
    ClassifiedCommand command = classifier.classify(argv, thread.read);
    thread.readArguments = arguments;
    if (!command.cacheableRead()
        || command.keyCount() == 0
        || !classifier.servableRead(argv, command)) {
      return null;
    }
    ConnectionState state = connectionState(thread, connection);
    String namespace = state.servableNamespace(client, endpointSource);
    if (namespace == null) {
      command.countHotKeyReads(false);
      return null;
    }
    int[] hashes = command.keptHashes();
    CacheKey key = new CacheKey(namespace, state.database(), argv, command.keyPositions(), hashes);
    thread.readKey = key;
    thread.readKeyHashes = hashes;
    Object found = cache.lookup(key, hashes);
    command.countHotKeyReads(found instanceof CachedReply);
    if (found instanceof ReadFill) {
      // a pooled client's fill is read through a connection it borrows: that one must be of its
      // identity
      thread.armFill((ReadFill) found, arguments, endpointSource == null ? state : null);
      if (endpointSource != null) {
        ((ReadFill) found).readThrough(state.node(endpointSource));
      }
      return null;
    }
    if (found == null) {
      return null;
    }
    classifier.record(argv, command);
    return new ServedReply(((CachedReply) found).freshRaw());
  }

  /** The raw reply of a synchronous command was read; kept if it is the armed fill's own reply. */
  public void onRawReply(Object raw) {
    ThreadCallState thread = threads.get();
    if (thread.fill != null && thread.fillSent && !thread.fillReplied) {
      thread.fillReply = raw;
      thread.fillReplied = true;
    }
  }

  /**
   * The read in progress failed on its connection ({@code failure}, a connection error or a
   * timeout): its answer from the key's last value, when {@code hotkey.cache.serve-stale-on-error}
   * allows one, else null. Called before {@link #endRead}.
   */
  public ServedReply staleRead(Throwable failure) {
    ThreadCallState thread = threads.get();
    CacheKey key = thread.readKey;
    if (key == null) {
      return null;
    }
    CachedReply stale = cache.stale(key, thread.readKeyHashes);
    if (stale == null) {
      return null;
    }
    StaleAnswers.logged(failure);
    return new ServedReply(stale.freshRaw());
  }

  /**
   * Ends every {@link #beginRead}, served or not; the outermost end stores the fill if the read
   * succeeded.
   */
  public void endRead(boolean failed) {
    ThreadCallState thread = threads.get();
    if (thread.readDepth > 0 && --thread.readDepth > 0) {
      return;
    }
    thread.readArguments = null;
    thread.readKey = null;
    thread.readKeyHashes = null;
    ReadFill fill = thread.fill;
    if (fill == null) {
      return;
    }
    try {
      if (!failed && thread.fillReplied) {
        cache.complete(fill, thread.fillReply);
      } else {
        cache.abandon(fill);
      }
    } finally {
      thread.disarmFill();
    }
  }

  /**
   * A fill must never stay registered once its reader has moved on, or that entry could never fill
   * again.
   */
  private void abandonFill(ThreadCallState thread) {
    if (thread.fill != null) {
      cache.abandon(thread.fill);
      thread.disarmFill();
    }
  }

  public AgentErrors errors() {
    return classifier.errors();
  }
}
