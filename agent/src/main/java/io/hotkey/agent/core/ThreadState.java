package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.redis.CommandSpec;

/**
 * Per-thread bookkeeping of the client calls in progress on that thread. Client connections are not
 * shared between threads while a command runs, so a thread sees its own sends and replies in order.
 *
 * <p>Writes are remembered until every reply this thread is waiting for has been read: only then
 * has Redis surely applied them (a pipeline's replies are read after all its commands are sent), and
 * only then are their keys' versions bumped (see {@code KeyVersions}). Writes queued inside
 * MULTI run only at EXEC, although their QUEUED replies may be read before EXEC is even sent, so
 * they wait for EXEC and then for its reply.
 */
final class ThreadState {
  int outstandingReplies;
  /** Nesting of local-read attempts: a pooled client's call reaches its connection's call inside it. */
  int readDepth;
  /** The connection (or client) this thread read through last, and its state; holds one object per thread alive. */
  Object lastConnection;
  ConnectionState lastState;
  /**
   * The arguments of the read in progress with the spec and key hashes beginRead found for them,
   * so that sending the same command does not look them up and hash its keys again.
   */
  Object readArguments;
  CommandSpec readSpec;
  int[] readHashes;
  private final WriteSet pending = new WriteSet();
  private final WriteSet queuedInTransaction = new WriteSet();
  private Object transactionConnection;

  /** A parked read being resumed on this thread (see {@link RedisGateway#resume}), until its dispatch takes it. */
  Object resumedCommand;
  /** This thread's writes in flight on multiplexed connections. */
  final ThreadWrites writesInFlight = new ThreadWrites();
  Object resumedAnswer;
  boolean resuming;

  ReadFill fill;
  Object fillArguments;
  boolean fillSent;
  Object fillReply;
  boolean fillReplied;

  /** The resumption's dispatch took its answer; the resumption itself lasts until {@code resuming} is reset. */
  Object takeResumedAnswer() {
    Object answer = resumedAnswer;
    resumedCommand = null;
    resumedAnswer = null;
    return answer;
  }

  void addWrite(Object connection, int hash) {
    (connection == transactionConnection ? queuedInTransaction : pending).add(hash);
  }

  void addWriteToEverything(Object connection) {
    (connection == transactionConnection ? queuedInTransaction : pending).addAll();
  }

  void transactionStarted(Object connection) {
    moveQueuedToPending();
    transactionConnection = connection;
  }

  /** EXEC (or DISCARD, RESET) was sent: the queued writes are applied once its reply is read. */
  void transactionEnded(Object connection) {
    if (connection == transactionConnection) {
      moveQueuedToPending();
      transactionConnection = null;
    }
  }

  private void moveQueuedToPending() {
    queuedInTransaction.addTo(pending);
    queuedInTransaction.clear();
  }

  /** Called when the thread waits for no more replies, or its connection broke. */
  void settle(KeyVersions versions, boolean connectionLost) {
    if (connectionLost) {
      transactionEnded(transactionConnection);
    }
    pending.bump(versions);
    pending.clear();
  }

  void rememberRead(Object arguments, CommandSpec spec, int[] hashes) {
    readArguments = arguments;
    readSpec = spec;
    readHashes = hashes;
  }

  void armFill(ReadFill fill, Object arguments) {
    this.fill = fill;
    this.fillArguments = arguments;
    this.fillSent = false;
    this.fillReply = null;
    this.fillReplied = false;
  }

  void disarmFill() {
    fill = null;
    fillArguments = null;
    fillReply = null;
  }
}
