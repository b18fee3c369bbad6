package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.ReadFill;
import java.util.Arrays;

/**
 * Per-thread bookkeeping of the client calls in progress on that thread. Client connections are not
 * shared between threads while a command runs, so a thread sees its own sends and replies in order.
 *
 * <p>Writes are remembered until every reply this thread is waiting for has been read: only then
 * has Redis surely applied them (a pipeline's replies are read after all its commands are sent), and
 * only then are their keys' versions bumped (see {@code KeyVersions}).
 */
final class ThreadState {
  private static final int MAX_PENDING = 1024;

  int outstandingReplies;
  private int[] pendingHashes = new int[16];
  private int pendingCount;
  /** More writes than we track, or a write to keys we cannot name: invalidate everything. */
  private boolean pendingAll;

  ReadFill fill;
  Object fillArguments;
  boolean fillSent;
  Object fillReply;
  boolean fillReplied;

  void addPendingWrite(int hash) {
    if (pendingCount == pendingHashes.length) {
      if (pendingCount >= MAX_PENDING) {
        pendingAll = true;
        return;
      }
      pendingHashes = Arrays.copyOf(pendingHashes, pendingCount * 2);
    }
    pendingHashes[pendingCount++] = hash;
  }

  void addPendingWriteAll() {
    pendingAll = true;
  }

  boolean hasPendingWrites() {
    return pendingCount > 0 || pendingAll;
  }

  void flushPendingWrites(KeyVersions versions) {
    if (pendingAll) {
      versions.bumpAll();
    }
    for (int i = 0; i < pendingCount; i++) {
      versions.bump(pendingHashes[i]);
    }
    pendingCount = 0;
    pendingAll = false;
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
