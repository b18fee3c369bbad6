package io.hotkey.agent.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.CommandSpec;
import io.hotkey.agent.redis.RedisCommandTable;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where every client adapter reports what it sees, in client-neutral terms: the command as Redis'
 * argv, the connection as an opaque identity, the reply as the client's raw protocol objects.
 *
 * <p>Protocol of one locally servable read, as an adapter drives it:
 * {@link #beginRead} (may answer at once) → {@link #onSend} → {@link #onReplyRead} →
 * {@link #onRawReply} → {@link #endRead}. Every other command only passes {@link #onSend} and
 * {@link #onReplyRead}.
 */
public final class RedisGateway {
  private final HotKeyDetector detector;
  private final HotKeyRegistry hotKeys;
  private final NearCache cache;
  private final KeyVersions versions;
  private final AgentErrors errors;
  private final LongAdder reads = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final Cache<Object, ConnectionState> connections = Caffeine.newBuilder().weakKeys().build();
  private final ThreadLocal<ThreadState> threads = ThreadLocal.withInitial(ThreadState::new);

  /** @param cache null when local serving is off: commands are still counted and hot keys still reported */
  public RedisGateway(HotKeyDetector detector, HotKeyRegistry hotKeys, NearCache cache, KeyVersions versions,
      AgentErrors errors) {
    this.detector = detector;
    this.hotKeys = hotKeys;
    this.cache = cache;
    this.versions = versions;
    this.errors = errors;
  }

  /** A command is about to be written to the connection (pipelined and transactional ones included). */
  public void onSend(Object connection, Object arguments, byte[][] argv) {
    ThreadState thread = threads.get();
    thread.outstandingReplies++;
    if (thread.fill != null && thread.fillArguments == arguments) {
      thread.fillSent = true;
    }
    try {
      record(connection, argv, thread);
    } catch (RuntimeException | Error e) {
      // the write, if it was one, can no longer be tied to its keys: invalidate everything once it is applied
      thread.addWriteToEverything(connection);
      throw e;
    }
  }

  private void record(Object connection, byte[][] argv, ThreadState thread) {
    errors.maybeInjectFailure();
    CommandSpec spec = RedisCommandTable.lookup(argv[0]);
    CommandSpec.Kind kind = spec.kind(argv);
    boolean write = kind == CommandSpec.Kind.WRITE || kind == CommandSpec.Kind.WRITE_ALL;
    (write ? writes : reads).increment();
    int keyCount = spec.keyCount(argv);
    for (int n = 0; n < keyCount; n++) {
      byte[] key = argv[spec.keyIndex(argv, n)];
      int hash = KeyHashes.hash(key);
      detector.record(key, hash, write);
      if (write) {
        thread.addWrite(connection, hash);
      }
    }
    if (kind == CommandSpec.Kind.WRITE_ALL) {
      thread.addWriteToEverything(connection);
    }
    CommandSpec.Session session = spec.session(argv);
    if (session != CommandSpec.Session.NONE) {
      onSessionCommand(connection, session, argv, thread);
    }
  }

  private void onSessionCommand(Object connection, CommandSpec.Session session, byte[][] argv, ThreadState thread) {
    if (session == CommandSpec.Session.MULTI) {
      thread.transactionStarted(connection);
    } else if (session == CommandSpec.Session.EXEC || session == CommandSpec.Session.DISCARD
        || session == CommandSpec.Session.RESET) {
      thread.transactionEnded(connection);
    }
    connections.get(connection, c -> new ConnectionState()).onSessionCommand(session, argv);
  }

  /** The send failed: no reply will come for it. */
  public void onSendFailed() {
    ThreadState thread = threads.get();
    if (thread.outstandingReplies > 0) {
      thread.outstandingReplies--;
    }
    if (thread.outstandingReplies == 0) {
      thread.settle(versions, false);
    }
  }

  /**
   * One reply was read from a connection, or the connection was lost. Once the thread waits for no
   * more replies, the writes it sent are applied in Redis and their keys' local entries die.
   */
  public void onReplyRead(boolean connectionLost) {
    ThreadState thread = threads.get();
    if (connectionLost || thread.outstandingReplies <= 1) {
      thread.outstandingReplies = 0;
      thread.settle(versions, connectionLost);
    } else {
      thread.outstandingReplies--;
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
  public ServedReply beginRead(String client, Object connection, Object endpointSource, Object arguments,
      byte[][] argv) {
    ThreadState thread = threads.get();
    if (thread.readDepth++ > 0 || cache == null) {
      // an outer level of the same call already decided; the inner level only carries it out
      return null;
    }
    abandonFill(thread);
    errors.maybeInjectFailure();
    CommandSpec spec = RedisCommandTable.lookup(argv[0]);
    if (spec.kind(argv) != CommandSpec.Kind.CACHEABLE_READ) {
      return null;
    }
    int keyCount = spec.keyCount(argv);
    if (keyCount == 0) {
      return null;
    }
    int[] hashes = new int[keyCount];
    for (int n = 0; n < keyCount; n++) {
      byte[] key = argv[spec.keyIndex(argv, n)];
      hashes[n] = KeyHashes.hash(key);
      if (!hotKeys.isServable(key, hashes[n])) {
        return null;
      }
    }
    ConnectionState state = connections.get(connection, c -> new ConnectionState());
    String namespace = state.servableNamespace(client, endpointSource);
    if (namespace == null) {
      return null;
    }
    Object found = cache.lookup(new CacheKey(namespace, argv), hashes);
    if (found instanceof ReadFill) {
      thread.armFill((ReadFill) found, arguments);
      return null;
    }
    if (found == null) {
      return null;
    }
    for (int n = 0; n < keyCount; n++) {
      detector.record(argv[spec.keyIndex(argv, n)], hashes[n], false);
    }
    reads.increment();
    return new ServedReply(((CachedReply) found).freshRaw());
  }

  /** The raw reply of a synchronous command was read; kept if it is the armed fill's own reply. */
  public void onRawReply(Object raw) {
    ThreadState thread = threads.get();
    if (thread.fill != null && thread.fillSent && !thread.fillReplied) {
      thread.fillReply = raw;
      thread.fillReplied = true;
    }
  }

  /** Ends every {@link #beginRead}, served or not; the outermost end stores the fill if the read succeeded. */
  public void endRead(boolean failed) {
    ThreadState thread = threads.get();
    if (thread.readDepth > 0 && --thread.readDepth > 0) {
      return;
    }
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

  /** A fill must never stay registered once its reader has moved on, or that entry could never fill again. */
  private void abandonFill(ThreadState thread) {
    if (thread.fill != null) {
      cache.abandon(thread.fill);
      thread.disarmFill();
    }
  }

  public AgentErrors errors() {
    return errors;
  }

  public long reads() {
    return reads.sum();
  }

  public long writes() {
    return writes.sum();
  }
}
