package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import java.util.Arrays;

/** Key hashes of writes whose invalidation waits for a moment when Redis has surely applied them. */
final class PendingWrites {
  private static final int MAX_TRACKED = 1024;

  private int[] hashes = new int[16];
  private int count;
  /** More writes than we track, or a write to keys we cannot name: invalidate everything. */
  private boolean all;

  void add(int hash) {
    if (count == hashes.length) {
      if (count >= MAX_TRACKED) {
        all = true;
        return;
      }
      hashes = Arrays.copyOf(hashes, count * 2);
    }
    hashes[count++] = hash;
  }

  void addAll() {
    all = true;
  }

  boolean isEmpty() {
    return count == 0 && !all;
  }

  void moveTo(PendingWrites other) {
    for (int i = 0; i < count; i++) {
      other.add(hashes[i]);
    }
    if (all) {
      other.addAll();
    }
    clear();
  }

  void flush(KeyVersions versions) {
    if (all) {
      versions.bumpAll();
    }
    for (int i = 0; i < count; i++) {
      versions.bump(hashes[i]);
    }
    clear();
  }

  void clear() {
    count = 0;
    all = false;
  }
}
