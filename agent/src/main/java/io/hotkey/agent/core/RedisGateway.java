package io.hotkey.agent.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ParkedReads;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.RedisCommandTable;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Where every client adapter reports what it sees, in client-neutral terms: the command as Redis'
 * argv, the connection as an opaque identity, the reply as the client's raw protocol objects.
 *
 * <p>Protocol of one locally servable read, as an adapter drives it: {@link #beginRead} (may answer
 * at once) → {@link #onSend} → {@link #onReplyRead} → {@link #onRawReply} → {@link #endRead}. Every
 * other command only passes {@link #onSend} and {@link #onReplyRead}.
 */
public final class RedisGateway {
  private final HotKeyDetector detector;
  private final HotKeyRegistry hotKeys;
  private final NearCache cache;
  private final KeyVersions versions;
  private final AgentErrors errors;

  /**
   * {@link AgentErrors#injectsFailures()}, copied here: every command reads this object's fields
   * anyway, while reading the switch from {@code errors} cost one more cold cache line per command
   * on the application's threads (10-30 ns in async-profiler, for a switch only tests turn on).
   */
  private final boolean injectFailures;

  private final CommandCounts commands = new CommandCounts();
  private final Cache<Object, ConnectionState> connections =
      Caffeine.newBuilder().weakKeys().build();
  private final ThreadLocal<ThreadState> threads = ThreadLocal.withInitial(ThreadState::new);

  /** Per-command path: replies being waited for, by the identity of the command's reply object. */
  private final TrackedReplies tracked = new TrackedReplies();

  private final InFlightWrites inFlight = new InFlightWrites();
  private final Supplier<TrackedReply> newTrackedReply;

  /**
   * Threads between {@link #resume} calls; dispatch looks at its thread's state only when some are.
   */
  private final AtomicInteger resuming = new AtomicInteger();

  /**
   * @param cache {@link NearCache#DISABLED} when local serving is off: commands are still counted
   *     and hot keys still reported
   */
  public RedisGateway(
      HotKeyDetector detector,
      HotKeyRegistry hotKeys,
      NearCache cache,
      KeyVersions versions,
      AgentErrors errors) {
    this.detector = detector;
    this.hotKeys = hotKeys;
    this.cache = cache;
    this.versions = versions;
    this.errors = errors;
    this.injectFailures = errors.injectsFailures();
    this.newTrackedReply = () -> new TrackedReply(versions, inFlight, cache);
  }

  private void maybeInjectFailure() {
    if (injectFailures) {
      errors.maybeInjectFailure();
    }
  }

  /**
   * A command is about to be written to a thread-bound connection (pipelined and transactional ones
   * included).
   */
  public void onSend(Object connection, Object arguments, byte[][] argv) {
    ThreadState thread = threads.get();
    if (thread.fill != null && thread.fillArguments == arguments) {
      thread.fillSent = true;
    }
    OwedReplies owed = owedReplies(thread, connection);
    long place = owed.onSend();
    try {
      record(arguments, argv, thread, owed, place);
    } catch (RuntimeException | Error e) {
      // the write, if it was one, can no longer be tied to its keys: invalidate everything once it
      // is applied
      owed.addWriteToEverything(place);
      throw e;
    }
  }

  private void record(
      Object arguments, byte[][] argv, ThreadState thread, OwedReplies owed, long place) {
    maybeInjectFailure();
    // a read that beginRead looked at already has its spec and key hashes
    boolean known = arguments != null && arguments == thread.readArguments;
    CommandSpec spec = known ? thread.readSpec : RedisCommandTable.lookup(argv[0]);
    CommandSpec.Kind kind = spec.kind(argv);
    boolean write = kind == CommandSpec.Kind.WRITE || kind == CommandSpec.Kind.WRITE_ALL;
    commands.count(write);
    int keyCount = spec.keyCount(argv);
    for (int n = 0; n < keyCount; n++) {
      byte[] key = argv[spec.keyIndex(argv, n)];
      int hash = known ? thread.readHashes[n] : KeyHashes.hash(key);
      detector.record(key, hash, write);
      if (write) {
        owed.addWrite(place, hash);
      }
    }
    if (kind == CommandSpec.Kind.WRITE_ALL) {
      owed.addWriteToEverything(place);
    }
    CommandSpec.Session session = spec.session(argv);
    if (session != CommandSpec.Session.NONE) {
      onSessionCommand(owed, place, session, argv);
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
  private OwedReplies owedReplies(ThreadState thread, Object connection) {
    if (thread.lastSent != connection) {
      thread.lastOwed = connections.get(connection, c -> new ConnectionState()).owed();
      thread.lastSent = connection;
    }
    return thread.lastOwed;
  }

  /**
   * The send failed: the connection is broken, and whatever it sent may or may not have been
   * applied.
   */
  public void onSendFailed(Object connection) {
    owedReplies(threads.get(), connection).settleAll(versions);
  }

  /**
   * One reply was read from a thread-bound connection, or the connection was lost. A write's keys'
   * local entries die once its own reply is read (see {@link OwedReplies}).
   */
  public void onReplyRead(Object connection, ReplyOutcome outcome) {
    OwedReplies owed = owedReplies(threads.get(), connection);
    if (outcome == ReplyOutcome.CONNECTION_LOST) {
      owed.settleAll(versions);
    } else {
      owed.onReply(outcome == ReplyOutcome.ERROR, versions);
    }
  }

  /**
   * A thread-bound connection was closed, disconnected or handed back to its pool: the replies it
   * still owed will not be read, so the writes waiting for them invalidate now.
   */
  public void onConnectionClosed(Object connection) {
    ThreadState thread = threads.get();
    OwedReplies owed = thread.lastSent == connection ? thread.lastOwed : null;
    if (owed == null) {
      ConnectionState state = connections.getIfPresent(connection);
      if (state == null) {
        return;
      }
      owed = state.owed();
    }
    owed.settleAll(versions);
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
    ThreadState thread = threads.get();
    if (thread.readDepth++ > 0) {
      // an outer level of the same call already decided; the inner level only carries it out
      if (thread.fill != null
          && thread.fillClient != null
          && !thread.fillClient.admitsFillThrough(
              connections.get(connection, c -> new ConnectionState()), client, endpointSource)) {
        abandonFill(thread);
      }
      return null;
    }
    abandonFill(thread);
    maybeInjectFailure();
    CommandSpec spec = RedisCommandTable.lookup(argv[0]);
    if (spec.kind(argv) != CommandSpec.Kind.CACHEABLE_READ) {
      return null;
    }
    int keyCount = spec.keyCount(argv);
    if (keyCount == 0) {
      return null;
    }
    int[] hashes = new int[keyCount];
    long keyPositions = 0;
    for (int n = 0; n < keyCount; n++) {
      int index = spec.keyIndex(argv, n);
      hashes[n] = KeyHashes.hash(argv[index]);
      keyPositions |= index < 64 ? 1L << index : 0;
    }
    thread.rememberRead(arguments, spec, hashes);
    for (int n = 0; n < keyCount; n++) {
      if (!hotKeys.isServable(argv[spec.keyIndex(argv, n)], hashes[n])) {
        return null;
      }
    }
    ConnectionState state = connectionState(thread, connection);
    String namespace = state.servableNamespace(client, endpointSource);
    if (namespace == null) {
      return null;
    }
    Object found = cache.lookup(new CacheKey(namespace, argv, keyPositions, hashes), hashes);
    if (found instanceof ReadFill) {
      // a pooled client's fill is read through a connection it borrows: that one must be of its
      // identity
      thread.armFill((ReadFill) found, arguments, endpointSource == null ? state : null);
      return null;
    }
    if (found == null) {
      return null;
    }
    for (int n = 0; n < keyCount; n++) {
      detector.record(argv[spec.keyIndex(argv, n)], hashes[n], false);
    }
    commands.count(false);
    return new ServedReply(((CachedReply) found).freshRaw());
  }

  /**
   * A client thread mostly talks through one client instance or connection, so the last one's state
   * is kept on the thread: a hit, or a write on a multiplexed connection, then skips the weak-keyed
   * map lookup.
   */
  private ConnectionState connectionState(ThreadState thread, Object connection) {
    if (thread.lastConnection != connection) {
      thread.lastState = connections.get(connection, c -> new ConnectionState());
      thread.lastConnection = connection;
    }
    return thread.lastState;
  }

  /** The raw reply of a synchronous command was read; kept if it is the armed fill's own reply. */
  public void onRawReply(Object raw) {
    ThreadState thread = threads.get();
    if (thread.fill != null && thread.fillSent && !thread.fillReplied) {
      thread.fillReply = raw;
      thread.fillReplied = true;
    }
  }

  /**
   * Ends every {@link #beginRead}, served or not; the outermost end stores the fill if the read
   * succeeded.
   */
  public void endRead(boolean failed) {
    ThreadState thread = threads.get();
    if (thread.readDepth > 0 && --thread.readDepth > 0) {
      return;
    }
    thread.rememberRead(null, null, null);
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
  private void abandonFill(ThreadState thread) {
    if (thread.fill != null) {
      cache.abandon(thread.fill);
      thread.disarmFill();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Per-command path, for multiplexed clients (Lettuce): the caller's thread sends, an I/O thread
  // decodes the reply and completes the command. Nothing here is tied to threads; a command is
  // identified by its reply object. Protocol: dispatch (may answer at once) → reply events → done.

  /**
   * A command is about to be written to a multiplexed connection. Counts it, remembers the keys it
   * writes until its reply starts, and for a cacheable read of hot keys returns a recorded reply to
   * replay into the command's own reply object instead of sending it (or registers the command as
   * the fill of its entry).
   *
   * @param reply the command's reply object (its identity ties the reply events to this command);
   *     null for a command that expects no reply
   * @param name the command name as sent
   * @param encodedArgs the arguments as the client encodes them on the wire: {@code argCount} RESP
   *     bulk strings; or, with {@code argCount} {@link RedisHooks#ONE_RAW_ARGUMENT}, the command's
   *     only argument as it is, without RESP framing
   * @param neverServe the connection or the call forbids a local answer (Pub/Sub, batches)
   */
  public ReplyTape.Cursor dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[] name,
      ByteBuffer encodedArgs,
      int argCount,
      boolean neverServe) {
    byte[][] argv;
    try {
      argv = argv(name, encodedArgs, argCount);
    } catch (RuntimeException | Error e) {
      invalidateEverythingOnReply(reply);
      throw e;
    }
    return dispatch(client, connection, command, reply, argv, neverServe);
  }

  /**
   * {@link #dispatch(String, Object, Object, Object, byte[], ByteBuffer, int, boolean)} with the
   * command already split into its name and arguments; {@code argv} is kept, not copied: the caller
   * must not change it.
   */
  public ReplyTape.Cursor dispatch(
      String client,
      Object connection,
      Object command,
      Object reply,
      byte[][] argv,
      boolean neverServe) {
    CommandSpec spec;
    CommandSpec.Kind kind;
    int[] hashes;
    ConnectionState state = null;
    try {
      maybeInjectFailure();
      spec = RedisCommandTable.lookup(argv[0]);
      kind = spec.kind(argv);
      boolean write = kind == CommandSpec.Kind.WRITE || kind == CommandSpec.Kind.WRITE_ALL;
      commands.count(write);
      int keyCount = spec.keyCount(argv);
      hashes = new int[keyCount];
      WriteSet written = write ? new WriteSet() : null;
      for (int n = 0; n < keyCount; n++) {
        byte[] key = argv[spec.keyIndex(argv, n)];
        hashes[n] = KeyHashes.hash(key);
        detector.record(key, hashes[n], write);
        if (write) {
          written.add(hashes[n]);
        }
      }
      if (kind == CommandSpec.Kind.WRITE_ALL) {
        written.addAll();
      }
      CommandSpec.Session session = spec.session(argv);
      if (session != CommandSpec.Session.NONE) {
        state = connectionState(threads.get(), connection);
        state.onSessionCommand(session, argv, false);
      }
      if (write) {
        ThreadState thread = threads.get();
        state = state != null ? state : connectionState(thread, connection);
        if (state.inMulti()) {
          state.queueInTransaction(written);
        } else if (reply != null
            && !neverServe
            && SetRun.isPlainSet(argv)
            && hotKeys.isServable(argv[1], hashes[0])) {
          String namespace = state.servableNamespace(client, null);
          track(reply)
              .addWrites(
                  written,
                  thread.writesInFlight,
                  namespace,
                  namespace == null ? null : argv,
                  hashes[0]);
        } else {
          trackWrites(reply, written, thread.writesInFlight);
        }
      }
      if (session == CommandSpec.Session.EXEC
          || session == CommandSpec.Session.DISCARD
          || session == CommandSpec.Session.RESET) {
        WriteSet queued = state.takeQueued();
        if (queued != null) {
          trackWrites(reply, queued, threads.get().writesInFlight);
        }
      }
    } catch (RuntimeException | Error e) {
      invalidateEverythingOnReply(reply);
      throw e;
    }
    if (neverServe
        || reply == null
        || kind != CommandSpec.Kind.CACHEABLE_READ
        || hashes.length == 0
        || spec.blocking(argv)) {
      return null;
    }
    long keyPositions = 0;
    for (int n = 0; n < hashes.length; n++) {
      int index = spec.keyIndex(argv, n);
      if (!hotKeys.isServable(argv[index], hashes[n])) {
        return null;
      }
      keyPositions |= index < 64 ? 1L << index : 0;
    }
    ThreadState thread = threads.get();
    state = state != null ? state : connectionState(thread, connection);
    String namespace = state.servableNamespace(client, null);
    if (namespace == null) {
      return null;
    }
    if (inFlight.blocksEverything() || thread.writesInFlight.blocks(hashes)) {
      return parkBehindSets(namespace, argv, hashes, connection, command) ? ReplyTape.PARKED : null;
    }
    Object found = cache.lookupNoWait(new CacheKey(namespace, argv, keyPositions, hashes), hashes);
    if (found instanceof ReadFill) {
      track(reply).startFill((ReadFill) found, cache.maxEntryBytes());
      return null;
    }
    if (found instanceof ParkedReads) {
      return cache.park((ParkedReads) found, connection, command) ? ReplyTape.PARKED : null;
    }
    if (found == null) {
      return null;
    }
    return new ReplyTape.Cursor((List<?>) ((CachedReply) found).shared());
  }

  /**
   * The command can no longer be tied to its keys: everything is invalidated once it is applied.
   */
  private void invalidateEverythingOnReply(Object reply) {
    WriteSet everything = new WriteSet();
    everything.addAll();
    trackWrites(reply, everything, threads.get().writesInFlight);
  }

  /**
   * A read that must see a write in flight (its own thread's, or one to every key): parked if it is
   * {@code GET key} behind a {@link SetRun} of the key, else sent.
   */
  private boolean parkBehindSets(
      String namespace, byte[][] argv, int[] hashes, Object connection, Object command) {
    if (!SetRun.isGet(argv)) {
      return false;
    }
    SetRun run = inFlight.run(hashes[0]);
    return run != null && run.parkGet(namespace, argv[1], connection, command, inFlight, versions);
  }

  /**
   * If {@code command} is being resumed on this thread (see {@link #resume}), returns what to do
   * with it: the answer to replay, or {@link ReplyTape#SEND} to send it to Redis; else null, and
   * the command is dispatched as new.
   */
  public ReplyTape.Cursor resumption(Object command) {
    if (resuming.get() == 0) {
      return null;
    }
    ThreadState thread = threads.get();
    Resumption resumed = thread.resumed;
    if (resumed == null || resumed.command() != command || command == null) {
      return null;
    }
    // the resumption's dispatch took its answer; the resumption itself lasts until resume(null)
    thread.resumed = null;
    return resumed.answered() ? new ReplyTape.Cursor((List<?>) resumed.answer()) : ReplyTape.SEND;
  }

  /**
   * Marks the next dispatch of the parked read's command on this thread as its resumption (see
   * {@link ParkedReads#settle}): it is answered with the read's answer or sent to Redis, and not
   * counted again. Call with null afterwards.
   */
  public void resume(Resumption read) {
    ThreadState thread = threads.get();
    boolean starts = read != null;
    if (starts != thread.resuming) {
      thread.resuming = starts;
      resuming.addAndGet(starts ? 1 : -1);
    }
    thread.resumed = read;
  }

  /**
   * @param sender the sending thread's own writes in flight
   */
  private void trackWrites(Object reply, WriteSet written, ThreadWrites sender) {
    if (written.isEmpty()) {
      return;
    }
    if (reply == null) {
      // no reply will tell when it is applied: the best left is now
      written.bump(versions);
      return;
    }
    track(reply).addWrites(written, sender, null, null, 0);
  }

  private TrackedReply track(Object reply) {
    return tracked.getOrCreate(reply, newTrackedReply);
  }

  private static byte[][] argv(byte[] name, ByteBuffer encoded, int count) {
    if (count == RedisHooks.ONE_RAW_ARGUMENT) {
      ByteBuffer view = encoded.duplicate();
      byte[] only = new byte[view.remaining()];
      view.get(only);
      return new byte[][] {name, only};
    }
    byte[][] argv = new byte[count + 1][];
    argv[0] = name;
    ByteBuffer in = encoded == null ? ByteBuffer.allocate(0) : encoded.duplicate();
    for (int i = 1; i <= count; i++) {
      if (in.get() != '$') {
        throw new IllegalArgumentException("argument " + i + " is not a bulk string");
      }
      int length = 0;
      byte b;
      while ((b = in.get()) != '\r') {
        length = length * 10 + (b - '0');
      }
      in.get();
      byte[] arg = new byte[length];
      in.get(arg);
      in.get();
      in.get();
      argv[i] = arg;
    }
    return argv;
  }

  /** See {@link RedisHooks#onConnectionReset}. */
  public void onConnectionReset(Object connection) {
    ConnectionState state = connections.getIfPresent(connection);
    if (state != null) {
      state.onReset();
    }
  }

  /** The connection starts or stops buffering commands until the application flushes them. */
  public void onManualFlush(Object connection, boolean manual) {
    connections.get(connection, c -> new ConnectionState()).setManualFlush(manual);
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

  public AgentErrors errors() {
    return errors;
  }

  public long reads() {
    return commands.reads();
  }

  public long writes() {
    return commands.writes();
  }
}
