package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ParkedReads;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.ClassifiedCommand;
import io.hotkey.agent.core.CommandClassifier;
import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.PerConnection;
import io.hotkey.agent.core.PlainSet;
import io.hotkey.agent.core.ServingGate;
import io.hotkey.agent.core.StaleAnswers;
import io.hotkey.agent.core.WriteSet;
import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Where the adapters of multiplexed clients (Lettuce) report what they see: the caller's thread
 * dispatches a command, an I/O thread decodes its reply and completes it. Nothing here is tied to a
 * thread; a command is identified by its reply object.
 *
 * <p>Protocol of one command: {@link #dispatch} (may answer at once, or park the command behind a
 * reply on its way) → the decoder's reply events ({@link #onReplyBytes} and the others) → {@link
 * #onCommandDone}, which hands back the reads parked behind it; each is dispatched again between
 * {@link #resume} calls, and {@link #resumption} tells that dispatch what to do.
 */
public final class MultiplexedGateway {
  private final CommandClassifier classifier;
  private final NearCache cache;
  private final KeyVersions versions;

  private final PerConnection<ConnectionState> connections;
  private final ThreadLocal<ThreadDispatchState> threads =
      ThreadLocal.withInitial(ThreadDispatchState::new);

  /** Replies being waited for, by the identity of the command's reply object. */
  private final TrackedReplies tracked = new TrackedReplies();

  private final FailedReads failedReads;

  private final InFlightWrites inFlight = new InFlightWrites();
  private final Supplier<TrackedReply> newTrackedReply;

  /**
   * Threads between {@link #resume} calls; dispatch looks at its thread's state only when some are.
   */
  private final AtomicInteger resuming = new AtomicInteger();

  public MultiplexedGateway(
      CommandClassifier classifier, NearCache cache, KeyVersions versions, ServingGate serving) {
    this.classifier = classifier;
    this.cache = cache;
    this.versions = versions;
    this.newTrackedReply = () -> new TrackedReply(versions, inFlight, cache);
    this.failedReads = new FailedReads(tracked, cache);
    this.connections = new PerConnection<>(c -> new ConnectionState(serving.permitFor(c)));
  }

  /**
   * A command is about to be written to a multiplexed connection. Counts it, remembers the keys it
   * writes until its reply starts, and for a cacheable read of hot keys returns a recorded reply to
   * replay into the command's own reply object instead of sending it (or registers the command as
   * the fill of its entry, or parks it behind a reply on its way).
   *
   * @param reply the command's reply object (its identity ties the reply events to this command);
   *     null for a command that expects no reply
   * @param name the command name as sent
   * @param encodedArgs the arguments as the client encodes them on the wire (see {@link
   *     EncodedArguments#argv})
   * @param answerable asked before a read is answered locally; {@link LocalAnswerCheck#NEVER} when
   *     the connection or the call forbids a local answer (Pub/Sub, batches)
   */
  public DispatchOutcome dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[] name,
      ByteBuffer encodedArgs,
      int argCount,
      LocalAnswerCheck answerable) {
    byte[][] argv;
    try {
      argv = EncodedArguments.argv(name, encodedArgs, argCount);
    } catch (RuntimeException | Error e) {
      invalidateEverythingOnReply(reply);
      throw e;
    }
    return dispatch(client, connection, command, reply, argv, answerable);
  }

  /**
   * {@link #dispatch(String, Object, Object, Object, byte[], ByteBuffer, int, LocalAnswerCheck)}
   * with the command already split into its name and arguments; {@code argv} is kept, not copied:
   * the caller must not change it.
   */
  public DispatchOutcome dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[][] argv,
      LocalAnswerCheck answerable) {
    ThreadDispatchState thread = threads.get();
    ClassifiedCommand classified;
    ConnectionState state = null;
    boolean expectsEcho = false;
    try {
      classifier.maybeInjectFailure();
      classified = classifier.classify(argv, thread.command);
      classifier.record(argv, classified);
      CommandSpec.Session session = classified.spec().session(argv);
      if (session != CommandSpec.Session.NONE) {
        state = connectionState(thread, connection);
        state.onSessionCommand(session, argv, false);
      }
      if (classified.writes()) {
        state = state != null ? state : connectionState(thread, connection);
        expectsEcho = trackWrites(client, connection, reply, argv, classified, answerable, state);
      }
      if (session == CommandSpec.Session.EXEC
          || session == CommandSpec.Session.DISCARD
          || session == CommandSpec.Session.RESET) {
        WriteSet queued = state.takeQueued();
        if (queued != null) {
          trackWrites(reply, queued);
        }
      }
    } catch (RuntimeException | Error e) {
      invalidateEverythingOnReply(reply);
      throw e;
    }
    if (answerable == LocalAnswerCheck.NEVER
        || reply == null
        || !classified.cacheableRead()
        || classified.keyCount() == 0
        || classified.spec().blocking(argv)
        || !classifier.servableRead(argv, classified)) {
      return expectsEcho ? DispatchOutcome.SEND_REPORTING_SERVER : DispatchOutcome.SEND;
    }
    // each outcome below counts the read for its hot keys (a parked read once handed back), in
    // place: the same lines as a method of their own bring dispatch under the size C2 inlines into
    // its caller, which compiles the cold path otherwise (docs/performance-history.md)
    state = state != null ? state : connectionState(thread, connection);
    String namespace = state.servableNamespace(client, null);
    if (namespace == null || !answerable.mayAnswerLocally(connection)) {
      // the client fails this read or holds it until it reconnects; so must the agent, which
      // neither answers it nor parks it (a parked read is answered later) nor counts a cache hit
      return missed(classified);
    }
    int[] hashes = classified.keptHashes();
    if (inFlight.blocks(hashes)) {
      return parkBehindSets(namespace, argv, hashes, connection, command, classified)
          ? DispatchOutcome.PARKED
          : missed(classified);
    }
    String beforeLoss = state.namespaceBeforeLoss();
    if (beforeLoss != null) {
      // no channel: the read would wait in the client's buffer and likely time out
      CachedReply stale =
          cache.stale(
              new CacheKey(beforeLoss, state.database(), argv, classified.keyPositions(), hashes),
              hashes);
      if (stale != null) {
        StaleAnswers.logged("the connection has no channel");
        classified.countHotKeyReads(true);
        return new ReplyTape.Cursor((List<?>) stale.shared());
      }
    }
    CacheKey key =
        new CacheKey(namespace, state.database(), argv, classified.keyPositions(), hashes);
    Object found = cache.lookupNoWait(key, hashes);
    if (!(found instanceof CachedReply) && cache.servesStale()) {
      // before it is parked or sent: whoever ends it may need to know
      track(reply).answerableStale(key, hashes);
    }
    if (found instanceof ReadFill) {
      classified.countHotKeyReads(false);
      track(reply).startFill((ReadFill) found, cache.maxEntryBytes());
      return DispatchOutcome.SEND_REPORTING_SERVER;
    }
    if (found instanceof ParkedReads) {
      return cache.park((ParkedReads) found, connection, command, classified.keptHotKeys())
          ? DispatchOutcome.PARKED
          : missed(classified);
    }
    if (found == null) {
      return missed(classified);
    }
    classified.countHotKeyReads(true);
    return new ReplyTape.Cursor((List<?>) ((CachedReply) found).shared());
  }

  /** A servable read that goes to Redis after all: a miss of each of its hot keys. */
  private static DispatchOutcome missed(ClassifiedCommand read) {
    read.countHotKeyReads(false);
    return DispatchOutcome.SEND;
  }

  /**
   * A write is tracked until its reply starts; inside MULTI, until EXEC's. A plain {@code SET} of a
   * servable key joins or starts a {@link SetRun}, and expects tracking's report of it once its
   * server is known, unless its connection would not write it now (a report it may never cause
   * would be held): returns true for it.
   */
  private boolean trackWrites(
      String client,
      Object connection,
      Object reply,
      byte[][] argv,
      ClassifiedCommand write,
      LocalAnswerCheck answerable,
      ConnectionState state) {
    WriteSet written = new WriteSet();
    for (int n = 0; n < write.keyCount(); n++) {
      written.add(write.hash(n));
    }
    if (write.writesEverything()) {
      written.addAll();
    }
    if (state.inMulti()) {
      state.queueInTransaction(written);
    } else if (reply != null
        && answerable != LocalAnswerCheck.NEVER
        && PlainSet.matches(argv)
        && classifier.servable(argv, write)
        && answerable.mayAnswerLocally(connection)) {
      String namespace = state.servableNamespace(client, null);
      if (namespace != null) {
        track(reply).addWrites(written, namespace, state.database(), argv, write.hash(0));
        return true;
      }
      track(reply).addWrites(written, null, 0, null, 0);
    } else {
      trackWrites(reply, written);
    }
    return false;
  }

  /**
   * A client thread mostly talks through one connection, so the last one's state is kept on the
   * thread: a write or a servable read then skips the weak-keyed map lookup.
   */
  private ConnectionState connectionState(ThreadDispatchState thread, Object connection) {
    if (thread.lastConnection != connection) {
      thread.lastState = connections.get(connection);
      thread.lastConnection = connection;
    }
    return thread.lastState;
  }

  /**
   * The command can no longer be tied to its keys: everything is invalidated once it is applied.
   */
  private void invalidateEverythingOnReply(Object reply) {
    WriteSet everything = new WriteSet();
    everything.addAll();
    trackWrites(reply, everything);
  }

  /**
   * A read that must see a write in flight (see {@link InFlightWrites}): parked if it is {@code GET
   * key} behind a {@link SetRun} of the key, else sent.
   */
  private boolean parkBehindSets(
      String namespace,
      byte[][] argv,
      int[] hashes,
      Object connection,
      Object command,
      ClassifiedCommand read) {
    if (!SetRun.isGet(argv)) {
      return false;
    }
    SetRun run = inFlight.run(hashes[0]);
    return run != null
        && run.parkGet(
            namespace, argv[1], connection, command, read.keptHotKeys(), inFlight, versions);
  }

  /**
   * If {@code command} is being resumed on this thread (see {@link #resume}), returns what to do
   * with it: the answer to replay, or {@link DispatchOutcome#SEND} when it has none or {@code
   * answerable} says its connection would not send it now; else null, and the command is dispatched
   * as new. A resumed read is counted here, as a hit or a miss.
   */
  public DispatchOutcome resumption(Object command, LocalAnswerCheck answerable) {
    if (resuming.get() == 0) {
      return null;
    }
    ThreadDispatchState thread = threads.get();
    Resumption resumed = thread.resumed;
    if (resumed == null || resumed.command() != command || command == null) {
      return null;
    }
    // the resumption's dispatch took its answer; the resumption itself lasts until resume(null)
    thread.resumed = null;
    boolean answered = resumed.answered() && answerable.mayAnswerLocally(resumed.connection());
    cache.countResumed(resumed, answered);
    return answered ? new ReplyTape.Cursor((List<?>) resumed.answer()) : DispatchOutcome.SEND;
  }

  /**
   * Marks the next dispatch of the parked read's command on this thread as its resumption (see
   * {@link ParkedReads#settle}): it is answered with the read's answer or sent to Redis, and not
   * counted again. Call with null afterwards.
   */
  public void resume(Resumption read) {
    ThreadDispatchState thread = threads.get();
    boolean starts = read != null;
    if (starts != thread.resuming) {
      thread.resuming = starts;
      resuming.addAndGet(starts ? 1 : -1);
    }
    thread.resumed = read;
  }

  private void trackWrites(Object reply, WriteSet written) {
    if (written.isEmpty()) {
      return;
    }
    if (reply == null) {
      // no reply will tell when it is applied: the best left is now
      written.bump(versions);
      return;
    }
    track(reply).addWrites(written, null, 0, null, 0);
  }

  private TrackedReply track(Object reply) {
    return tracked.getOrCreate(reply, newTrackedReply);
  }

  /**
   * A command dispatched as {@link DispatchOutcome#SEND_REPORTING_SERVER} (a fill, or a plain SET
   * of a hot key) was written to a connection of {@code server} (its remote address, or the {@link
   * RedisEndpoint} its channel was described as; null if not connected): its reply is read from
   * there, and there its write is applied.
   */
  public void onWrittenTo(Object reply, Object server) {
    TrackedReply waiting = trackedFor(reply);
    if (waiting != null) {
      waiting.writtenTo(
          server instanceof RedisEndpoint
              ? (RedisEndpoint) server
              : ConnectionState.serverAt(server));
    }
  }

  /** The connection lost its channel or got a new one: its reads start a namespace of their own. */
  public void onConnectionReset(Object connection, boolean channelLost) {
    ConnectionState state = connections.getIfPresent(connection);
    if (state == null) {
      return;
    }
    if (channelLost) {
      state.onChannelLost();
    } else {
      state.onReset();
    }
  }

  /** The connection starts or stops buffering commands until the application flushes them. */
  public void onManualFlush(Object connection, boolean manual) {
    connections.get(connection).setManualFlush(manual);
  }

  private TrackedReply trackedFor(Object reply) {
    return reply == null ? null : tracked.get(reply);
  }

  /** The decoder hands a bulk string (or nil, or a big number) to a reply object. */
  public void onReplyBytes(Object reply, ByteBuffer bytes, boolean bigNumber) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onBulk(bytes, bigNumber);
    }
  }

  /** The decoder hands an integer to a reply object. */
  public void onReplyLong(Object reply, long value) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onScalar(value);
    }
  }

  public void onReplyDouble(Object reply, double value) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onScalar(value);
    }
  }

  public void onReplyBoolean(Object reply, boolean value) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onScalar(value);
    }
  }

  /**
   * The decoder opens an aggregate ({@link ReplyTape#OP_ARRAY}, {@code OP_SET} or {@code OP_MAP}).
   */
  public void onReplyAggregate(Object reply, int op, int count) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onAggregate(op, count);
    }
  }

  public void onReplyError(Object reply) {
    TrackedReply t = trackedFor(reply);
    if (t != null) {
      t.onError();
    }
  }

  /**
   * The command that owns this reply object ended, however it ended. Returns the reads parked
   * behind it for the adapter to resume (see {@link ParkedReads#settle} and {@link #resume}), often
   * none.
   */
  public List<Resumption> onCommandDone(Object reply) {
    TrackedReply t = reply == null ? null : tracked.remove(reply);
    return t == null ? List.of() : t.done();
  }

  /** Where the adapter reports the reads {@link #dispatch} sent or parked that failed. */
  public FailedReads failedReads() {
    return failedReads;
  }

  public AgentErrors errors() {
    return classifier.errors();
  }
}
