package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import java.util.Arrays;
import java.util.Collection;

/**
 * Every key hot now, here or across the fleet, with whether its reads may be answered locally and
 * the counters of its reads: an immutable open-addressing table rebuilt whenever the hot keys or
 * the cache's filters change (rare) and read without a lock by every cacheable read (often). The
 * empty table answers in one branch, which is what cold-key traffic pays while nothing is hot.
 */
final class HotKeyTable {
  static final HotKeyTable EMPTY = new HotKeyTable(new Entry[0], new int[0], null);

  /**
   * One hot key. A key longer than the detector keeps is held as its prefix, matched by hash, full
   * length and prefix as the detector identifies it, and never servable (it cannot be matched
   * exactly).
   */
  static final class Entry {
    private final byte[] key;
    private final int keyLength;
    final int hash;
    final boolean servable;
    final HotKeyReads reads;

    Entry(byte[] key, int keyLength, int hash, boolean servable, HotKeyReads reads) {
      this.key = key;
      this.keyLength = keyLength;
      this.hash = hash;
      this.servable = servable;
      this.reads = reads;
    }

    boolean matches(byte[] other) {
      return other.length == keyLength && Arrays.equals(key, 0, key.length, other, 0, key.length);
    }
  }

  private final Entry[] entries;
  private final int[] hashes;
  private final int mask;

  /** What a key that is not in the table finds: null, or every key's entry. */
  private final Entry otherKeys;

  private HotKeyTable(Entry[] entries, int[] hashes, Entry otherKeys) {
    this.entries = entries;
    this.hashes = hashes;
    this.mask = entries.length - 1;
    this.otherKeys = otherKeys;
  }

  static HotKeyTable of(Collection<Entry> members) {
    return members.isEmpty() ? EMPTY : of(members, null);
  }

  /**
   * {@code members}, and every other key as hot and servable, counted in {@code otherKeysReads}
   * ({@code hotkey.debug.every-key-hot}).
   */
  static HotKeyTable everyKey(Collection<Entry> members, HotKeyReads otherKeysReads) {
    return of(members, new Entry(new byte[0], -1, 0, true, otherKeysReads));
  }

  private static HotKeyTable of(Collection<Entry> members, Entry otherKeys) {
    int capacity = Integer.highestOneBit(Math.max(2, members.size() * 2 - 1)) << 1;
    Entry[] entries = new Entry[capacity];
    int[] hashes = new int[capacity];
    for (Entry member : members) {
      int slot = member.hash & (capacity - 1);
      while (entries[slot] != null) {
        slot = (slot + 1) & (capacity - 1);
      }
      entries[slot] = member;
      hashes[slot] = member.hash;
    }
    return new HotKeyTable(entries, hashes, otherKeys);
  }

  boolean isEmpty() {
    return mask < 0;
  }

  /** The entry of {@code key} ({@code hash} is {@code KeyHashes.hash(key)}), or null if not hot. */
  Entry find(byte[] key, int hash) {
    if (mask < 0) {
      return null;
    }
    for (int slot = hash & mask; entries[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash && entries[slot].matches(key)) {
        return entries[slot];
      }
    }
    return otherKeys;
  }
}
