package io.hotkey.agent.detect;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The sliding window: for up to {@link DetectorSettings#capacity()} tracked keys, the counts of the
 * last {@link DetectorSettings#slots()} slots, as a ring per key. A key's window count is their sum
 * and its rate that sum (times the sampling) over the window's length; since a slot is harvested
 * one tick after it closes, rates lag by one slot. Owned by the tick thread.
 *
 * <p>Each tick {@link #advance() expires the oldest slot} and {@link #add adds a harvest} into the
 * newest one: a tracked key's candidate adds to its count; new keys take free entries, then the
 * entries of smaller keys, biggest newcomer first. {@link #pin Pinned} entries (the hot keys) are
 * never evicted. Everything is in flat arrays allocated once.
 *
 * <p>A window entry is identified by its number, {@code e} in {@code [0, capacity)}, valid while
 * {@link #used(int)}.
 */
final class KeyWindow {

  private final int capacity;
  private final int slots;
  private final int keyBytes;
  private final int sampling;
  private final double windowSeconds;

  private final byte[] keys; // [entry * keyBytes], the first keyBytes bytes of the key
  private final int[] hash;
  private final int[] length; // the key's full length
  private final int[] counts; // [entry * slots + slot]
  private final int[] writes; // [entry * slots + slot]
  private final long[] total;
  private final long[] totalWrites;
  private final boolean[] used;
  private final boolean[] pinned;

  /** Entry number + 1 per position, 0 = free; rebuilt after each harvest is added. */
  private final int[] index;

  /**
   * Free entries, taken from the top: the never used lowest first, and each admission frees the
   * emptied ones highest first, so that entries in use stay among the lowest numbers.
   */
  private final int[] free;

  private int freeTop;

  /**
   * Every entry at or above this number is free, so the tick's loops stop here: on a service with
   * no key above one access per slot they run no iteration, and the JIT never compiles them while
   * it is busy with the application's own code in its first seconds.
   */
  private int extent;

  /** Sort buffers: window entries, and the new candidates of a harvest. */
  private final long[] entryOrder;

  private final long[] newcomers;

  /** The slot a harvest is added to. */
  private int cursor;

  KeyWindow(DetectorSettings settings, int harvestCapacity) {
    capacity = settings.capacity();
    slots = settings.slots();
    keyBytes = settings.keyBytes();
    sampling = settings.sampling();
    windowSeconds = settings.window().toNanos() / 1e9;
    keys = new byte[capacity * keyBytes];
    hash = new int[capacity];
    length = new int[capacity];
    counts = new int[capacity * slots];
    writes = new int[capacity * slots];
    total = new long[capacity];
    totalWrites = new long[capacity];
    used = new boolean[capacity];
    pinned = new boolean[capacity];
    index = new int[DetectorSettings.nextPow2(2 * capacity)];
    free = new int[capacity];
    entryOrder = new long[capacity];
    newcomers = new long[harvestCapacity];
    for (int e = capacity - 1; e >= 0; e--) {
      free[freeTop++] = e;
    }
  }

  /** Moves to the next slot, forgetting what the window counted in it a whole window ago. */
  void advance() {
    cursor = cursor + 1 == slots ? 0 : cursor + 1;
    for (int e = 0; e < extent; e++) {
      if (used[e]) {
        int i = e * slots + cursor;
        total[e] -= counts[i];
        totalWrites[e] -= writes[i];
        counts[i] = 0;
        writes[i] = 0;
      }
    }
  }

  /** Adds a harvest's candidates to the current slot, admitting new keys as room allows. */
  void add(SlotHarvest harvest) {
    int fresh = addTracked(harvest);
    admit(harvest, fresh);
    rebuildIndex();
  }

  /**
   * Adds the candidates of keys already in the window; returns how many candidates are new (their
   * numbers are at the front of {@code newcomers}).
   */
  private int addTracked(SlotHarvest harvest) {
    int fresh = 0;
    int mask = index.length - 1;
    for (int c = 0; c < harvest.size(); c++) {
      int h = harvest.hash(c);
      int len = harvest.length(c);
      int e = -1;
      for (int pos = KeyHashes.fmix(h) & mask; ; pos = (pos + 1) & mask) {
        int x = index[pos] - 1;
        if (x < 0) {
          break;
        }
        if (hash[x] == h && length[x] == len && harvest.keyEquals(c, keys, x * keyBytes)) {
          e = x;
          break;
        }
      }
      if (e >= 0) {
        addToSlot(e, harvest, c);
      } else {
        newcomers[fresh++] = CountOrder.of(harvest.count(c), c);
      }
    }
    return fresh;
  }

  private void addToSlot(int e, SlotHarvest harvest, int c) {
    int i = e * slots + cursor;
    int add = (int) Math.min(harvest.count(c), Integer.MAX_VALUE - (long) counts[i]);
    int addWrites = (int) Math.min(harvest.writes(c), add);
    counts[i] += add;
    writes[i] += addWrites;
    total[e] += add;
    totalWrites[e] += addWrites;
  }

  /**
   * Gives window entries to new candidates, biggest first: free entries, then entries of unpinned
   * keys whose window count is smaller than the newcomer's count (smallest first). Entries whose
   * window emptied are freed first, highest number first, so that the lowest are taken next. Pinned
   * keys are never evicted (they keep their counts).
   */
  private void admit(SlotHarvest harvest, int fresh) {
    int evictables = 0;
    for (int e = extent - 1; e >= 0; e--) {
      if (used[e] && !pinned[e]) {
        if (total[e] <= 0) {
          free(e);
        } else {
          entryOrder[evictables++] = CountOrder.of(total[e], e);
        }
      }
    }
    if (fresh == 0) {
      return;
    }
    Arrays.sort(newcomers, 0, fresh);
    boolean evictSorted = false;
    int victim = 0;
    for (int i = fresh - 1; i >= 0; i--) {
      int c = CountOrder.index(newcomers[i]);
      long count = CountOrder.count(newcomers[i]);
      if (freeTop == 0) {
        if (!evictSorted) {
          Arrays.sort(entryOrder, 0, evictables);
          evictSorted = true;
        }
        if (victim >= evictables || CountOrder.count(entryOrder[victim]) >= count) {
          return; // every remaining newcomer is smaller than every remaining entry
        }
        free(CountOrder.index(entryOrder[victim++]));
      }
      int e = free[--freeTop];
      extent = Math.max(extent, e + 1);
      harvest.copyKey(c, keys, e * keyBytes);
      hash[e] = harvest.hash(c);
      length[e] = harvest.length(c);
      used[e] = true;
      pinned[e] = false;
      addToSlot(e, harvest, c);
    }
  }

  private void free(int e) {
    used[e] = false;
    pinned[e] = false;
    total[e] = 0;
    totalWrites[e] = 0;
    Arrays.fill(counts, e * slots, e * slots + slots, 0);
    Arrays.fill(writes, e * slots, e * slots + slots, 0);
    free[freeTop++] = e;
  }

  private void rebuildIndex() {
    Arrays.fill(index, 0);
    int mask = index.length - 1;
    int last = -1;
    for (int e = 0; e < extent; e++) {
      if (used[e]) {
        int pos = KeyHashes.fmix(hash[e]) & mask;
        while (index[pos] != 0) {
          pos = (pos + 1) & mask;
        }
        index[pos] = e + 1;
        last = e;
      }
    }
    extent = last + 1;
  }

  /** Every entry at or above this number is free. */
  int extent() {
    return extent;
  }

  boolean used(int e) {
    return used[e];
  }

  /** Counted accesses of entry e over the window. */
  long count(int e) {
    return total[e];
  }

  /** Accesses per second of entry e over the window, sampling accounted for. */
  double rate(int e) {
    return (double) total[e] * sampling / windowSeconds;
  }

  boolean pinned(int e) {
    return pinned[e];
  }

  /** Keeps entry e in the window whatever its count, until {@link #unpin}. */
  void pin(int e) {
    pinned[e] = true;
  }

  void unpin(int e) {
    pinned[e] = false;
  }

  /** A snapshot of entry e (a fresh copy of its key). */
  KeyRate keyRate(int e) {
    int stored = Math.min(length[e], keyBytes);
    byte[] key = Arrays.copyOfRange(keys, e * keyBytes, e * keyBytes + stored);
    long w = Math.min(Math.max(totalWrites[e], 0), total[e]);
    return new KeyRate(key, length[e], hash[e], (total[e] - w) * sampling, w * sampling, rate(e));
  }

  /**
   * Up to {@code max} entries (only the pinned ones if {@code pinnedOnly}), highest count first.
   */
  List<KeyRate> byCount(int max, boolean pinnedOnly) {
    int n = 0;
    for (int e = 0; e < extent; e++) {
      if (used[e] && (pinned[e] || !pinnedOnly)) {
        entryOrder[n++] = CountOrder.of(total[e], e);
      }
    }
    Arrays.sort(entryOrder, 0, n);
    int size = Math.max(0, Math.min(max, n));
    KeyRate[] rates = new KeyRate[size];
    for (int i = 0; i < size; i++) {
      rates[i] = keyRate(CountOrder.index(entryOrder[n - 1 - i]));
    }
    return Collections.unmodifiableList(Arrays.asList(rates));
  }

  /**
   * Bytes of the window's arrays (headers not included) and of the lists of keys it hands out: two
   * lists of every key may be alive at once (topKeys' results, or the published hot keys and the
   * ones being built), per key a KeyRate, its key copy and a list slot.
   */
  long memoryBytes() {
    long arrays =
        (long) capacity * keyBytes
            + (long) capacity * (4 + 4 + 8 + 8 + 1 + 1 + 4 + 8)
            + 8L * capacity * slots
            + 4L * index.length
            + 8L * newcomers.length;
    long keyLists = 2L * capacity * (48 + 16 + keyBytes + 8);
    return arrays + keyLists;
  }
}
