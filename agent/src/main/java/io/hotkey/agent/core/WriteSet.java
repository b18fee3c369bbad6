package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import java.util.Arrays;

/**
 * Key hashes written by one command, one transaction or one thread's unsettled calls, plus "every
 * key" for writes that cannot be named or are too many to track one by one.
 */
final class WriteSet {
  private static final int MAX_TRACKED = 1024;

  private int[] hashes = new int[4];
  private int count;
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

  void addTo(WriteSet other) {
    for (int i = 0; i < count; i++) {
      other.add(hashes[i]);
    }
    if (all) {
      other.addAll();
    }
  }

  void clear() {
    count = 0;
    all = false;
  }

  void bump(KeyVersions versions) {
    if (all) {
      versions.bumpAll();
    }
    for (int i = 0; i < count; i++) {
      versions.bump(hashes[i]);
    }
  }

  /**
   * Counts these writes in flight, sent by {@code sender}; returns whether they were the only ones
   * on their stripes.
   */
  boolean acquire(InFlightWrites inFlight, ThreadWrites sender) {
    boolean alone = !all;
    if (all) {
      inFlight.acquireAll();
    }
    for (int i = 0; i < count; i++) {
      alone &= inFlight.acquire(hashes[i]);
      sender.acquire(hashes[i]);
    }
    return alone;
  }

  void release(InFlightWrites inFlight, ThreadWrites sender) {
    if (all) {
      inFlight.releaseAll();
    }
    for (int i = 0; i < count; i++) {
      inFlight.release(hashes[i]);
      sender.release(hashes[i]);
    }
  }
}
