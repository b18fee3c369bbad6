package io.hotkey.agent.core;

import java.util.Arrays;
import java.util.Collection;
import java.util.function.ToIntFunction;

/**
 * The keys whose reads may be answered locally: an immutable open-addressing set rebuilt on every
 * promotion or demotion (rare) and read without a lock on every cacheable command (often). The
 * empty set answers in one branch, which is what cold-key traffic pays.
 */
final class ServableKeys {
  static final ServableKeys EMPTY = new ServableKeys(new byte[0][], new int[0]);

  private final byte[][] keys;
  private final int[] hashes;
  private final int mask;

  private ServableKeys(byte[][] keys, int[] hashes) {
    this.keys = keys;
    this.hashes = hashes;
    this.mask = keys.length - 1;
  }

  static ServableKeys of(Collection<byte[]> members, ToIntFunction<byte[]> hash) {
    if (members.isEmpty()) {
      return EMPTY;
    }
    int capacity = Integer.highestOneBit(Math.max(2, members.size() * 2 - 1)) << 1;
    byte[][] keys = new byte[capacity][];
    int[] hashes = new int[capacity];
    for (byte[] member : members) {
      int h = hash.applyAsInt(member);
      int slot = h & (capacity - 1);
      while (keys[slot] != null) {
        slot = (slot + 1) & (capacity - 1);
      }
      keys[slot] = member;
      hashes[slot] = h;
    }
    return new ServableKeys(keys, hashes);
  }

  boolean contains(byte[] key, int hash) {
    if (mask < 0) {
      return false;
    }
    for (int slot = hash & mask; keys[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash && Arrays.equals(keys[slot], key)) {
        return true;
      }
    }
    return false;
  }
}
