package io.hotkey.agent.core;

import io.hotkey.agent.cache.KeyVersions;
import java.util.Arrays;

/**
 * Key hashes written by one command, one transaction or one thread's unsettled calls, plus "every
 * key" for writes that cannot be named or are too many to track one by one.
 */
public final class WriteSet {
  private static final int MAX_TRACKED = 1024;

  private int[] hashes = new int[4];
  private int count;
  private boolean all;

  public void add(int hash) {
    if (count == hashes.length) {
      if (count >= MAX_TRACKED) {
        all = true;
        return;
      }
      hashes = Arrays.copyOf(hashes, count * 2);
    }
    hashes[count++] = hash;
  }

  public void addAll() {
    all = true;
  }

  public boolean isEmpty() {
    return count == 0 && !all;
  }

  public void addTo(WriteSet other) {
    for (int i = 0; i < count; i++) {
      other.add(hashes[i]);
    }
    if (all) {
      other.addAll();
    }
  }

  public void clear() {
    count = 0;
    all = false;
  }

  public void bump(KeyVersions versions) {
    if (all) {
      versions.bumpAll();
    }
    for (int i = 0; i < count; i++) {
      versions.bump(hashes[i]);
    }
  }

  /** Whether it stands for every key, whichever it names. */
  public boolean everything() {
    return all;
  }

  /** How many key hashes it names. */
  public int size() {
    return count;
  }

  /** The {@code i}th key hash it names. */
  public int hash(int i) {
    return hashes[i];
  }
}
