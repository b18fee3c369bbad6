package io.hotkey.agent.core.threadbound;

import io.hotkey.agent.cache.CacheKey;
import io.hotkey.agent.cache.ReadFill;
import io.hotkey.agent.core.ClassifiedCommand;
import io.hotkey.agent.core.ConnectionState;

/**
 * What one thread keeps of the thread-bound client calls in progress on it: the local read being
 * decided or filled, and the connections it used last. What a connection has sent and still waits
 * for belongs to the connection ({@link OwedReplies}), never to the thread.
 */
final class ThreadCallState {
  /**
   * Nesting of local-read attempts: a pooled client's call reaches its connection's call inside it.
   */
  int readDepth;

  /**
   * The connection (or pooled client) this thread read through last, and its state; holds one
   * object per thread alive.
   */
  Object lastConnection;

  ConnectionState lastState;

  /** The connection this thread sent on last, and its replies. */
  Object lastSent;

  OwedReplies lastOwed;

  /**
   * The arguments of the call in progress and the command beginRead classified for them, so that
   * sending the same command does not look it up and hash its keys again.
   */
  Object readArguments;

  final ClassifiedCommand read = new ClassifiedCommand();

  /** Where a command beginRead did not see (pipelined, or a handshake's) is classified. */
  final ClassifiedCommand sent = new ClassifiedCommand();

  /** The local read in progress, as the cache knows it: what a failed read may be answered from. */
  CacheKey readKey;

  int[] readKeyHashes;

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
