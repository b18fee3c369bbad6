package io.hotkey.agent.core;

import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.redis.CommandSpec;

/**
 * Per-thread bookkeeping of the client calls in progress on that thread: the local read being
 * decided or filled, and the parked read being resumed. What a connection has sent and still waits
 * for belongs to the connection ({@link OwedReplies}), never to the thread.
 */
final class ThreadState {
  /**
   * Nesting of local-read attempts: a pooled client's call reaches its connection's call inside it.
   */
  int readDepth;

  /**
   * The connection (or client) this thread read through last, and its state; holds one object per
   * thread alive.
   */
  Object lastConnection;

  ConnectionState lastState;

  /** The thread-bound connection this thread sent on last, and its replies. */
  Object lastSent;

  OwedReplies lastOwed;

  /**
   * The arguments of the read in progress with the spec and key hashes beginRead found for them, so
   * that sending the same command does not look them up and hash its keys again.
   */
  Object readArguments;

  CommandSpec readSpec;
  int[] readHashes;

  /**
   * A parked read being resumed on this thread (see {@link RedisGateway#resume}), until its
   * dispatch takes it.
   */
  Resumption resumed;

  /** This thread's writes in flight on multiplexed connections. */
  final ThreadWrites writesInFlight = new ThreadWrites();

  boolean resuming;

  ReadFill fill;
  Object fillArguments;

  /**
   * The pooled client whose fill this is, which checks the connection it borrows for it; null for a
   * connection's own.
   */
  ConnectionState fillClient;

  boolean fillSent;
  Object fillReply;
  boolean fillReplied;

  void rememberRead(Object arguments, CommandSpec spec, int[] hashes) {
    readArguments = arguments;
    readSpec = spec;
    readHashes = hashes;
  }

  void armFill(ReadFill fill, Object arguments, ConnectionState client) {
    this.fill = fill;
    this.fillArguments = arguments;
    this.fillClient = client;
    this.fillSent = false;
    this.fillReply = null;
    this.fillReplied = false;
  }

  void disarmFill() {
    fill = null;
    fillArguments = null;
    fillClient = null;
    fillReply = null;
  }
}
