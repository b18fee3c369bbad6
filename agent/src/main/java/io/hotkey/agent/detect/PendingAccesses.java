package io.hotkey.agent.detect;

import java.util.Arrays;

/**
 * One recording thread's accesses not yet counted in the sketch: up to {@link #CAPACITY} of them, each
 * as its key, the key's hash and whether it was a write. Owned by its thread alone (a
 * {@code ThreadLocal} of the detector), so it is written with plain stores.
 *
 * <p>Why buffer at all: a sketch bucket is a random cache line among hundreds of kilobytes, so
 * counting an access on its own costs a cache miss on the application's thread (170-220 ns per
 * command in a profile of a Lettuce service at 75k commands/s, more than the rest of the agent's
 * work on that thread). Counted {@link #CAPACITY} at a time, the misses overlap (see
 * {@link HeavyKeeperTable#addAll}). This is the read buffer of Caffeine, minus its losses: nothing
 * buffered is dropped, the thread that fills the buffer empties it; and a thread buffers only once
 * it has recorded {@link #COUNTED_AT_ONCE} accesses, so short-lived threads lose nothing.
 *
 * <p>Keys are referenced, not copied: copying a prefix of each
 * cost twice what the garbage collector's barrier on the reference store costs (40 against 23 ns
 * per access in {@code DetectorBenchmark.record1Thread}). A reference is cleared once counted; a
 * thread that stops recording keeps fewer than {@link #CAPACITY} keys alive.
 *
 * <p><b>First sightings.</b> A buffering thread also keeps a doorkeeper, as TinyLFU does: bits
 * indexed by the key's hash, set at a key's access by this thread. Only accesses whose bit is
 * already set are buffered and counted; the first access of each key is not. Why: in a long tail
 * most keys are accessed once by a thread in minutes, and counting each such access cost a sketch
 * bucket (a cache miss, a decay coin, a claim), then a harvest and a place in the window, for a key
 * that can never be hot; probing bits that stay in the core's cache costs a few ns.
 *
 * <p>The bits come in two halves of {@link #SEEN_BITS}: the current one and the previous one. A key
 * counts as seen if either has its bit; it is marked in the current one. Once
 * {@link #ROTATE_AFTER} new bits are set, the previous half is cleared and becomes the current one.
 * So what is lost is bounded: a thread leaves one access of a key uncounted only when it has not
 * accessed the key during the last {@code ROTATE_AFTER} first sightings (a key spread however thinly
 * over threads loses at most one access per thread per such gap, and a key a thread keeps using
 * loses nothing after its first access). A bit shared by two keys only counts an access that would
 * otherwise be lost, as before this filter existed. 16 KB per buffering thread.
 */
final class PendingAccesses {

  /** Accesses buffered per thread: enough to overlap the misses, small enough to stay in cache. */
  static final int CAPACITY = 32;

  /**
   * A thread's first accesses are counted one by one: a thread that lives for a few commands (a
   * virtual thread per request, a thread per task) would otherwise end with them all uncounted. A
   * thread that has lived this long and then ends loses at most {@code CAPACITY - 1} of its
   * accesses, 3% for one that ends right after.
   */
  static final int COUNTED_AT_ONCE = 1024;

  /** Bits in each half of the first-sightings filter (see the class comment). */
  static final int SEEN_BITS = 1 << 16;

  /**
   * New bits after which the halves rotate: each half has at most 1 bit in 16 set, so a key accessed
   * for the first time is counted anyway (another key's bit) with a chance of at most 1 in 8.
   */
  static final int ROTATE_AFTER = SEEN_BITS / 16;

  private static final int SEEN_WORDS = SEEN_BITS / Long.SIZE;

  /** The stripe and decay coin of the owning thread, fixed at creation (see HotKeyDetector#record). */
  final int stripe;

  final int coin;
  /** Accesses still to be counted at once before this thread buffers. */
  int countedAtOnce = COUNTED_AT_ONCE;
  /** Allocated when the thread starts buffering. */
  int[] hashes;
  byte[][] keys;
  /** The first-sightings filter's two halves, allocated with the buffer. */
  private long[] seen;
  /** Offset of the current half in {@link #seen}: 0 or {@link #SEEN_WORDS}. */
  private int current;
  /** Bits set in the current half. */
  private int seenCount;
  /** Bit i: access i was a write. */
  int writes;

  int size;
  /** Keeps what {@link HeavyKeeperTable#addAll} read ahead, so that the reads stay. */
  int readAhead;
  /** The generation that was current when the oldest buffered access was recorded. */
  int generation;

  PendingAccesses(int stripe, int coin, int generation) {
    this.stripe = stripe;
    this.coin = coin;
    this.generation = generation;
  }

  /** Whether this thread's accesses are buffered by now; counts the ones that are not. */
  boolean buffers() {
    if (countedAtOnce == 0) {
      return true;
    }
    if (--countedAtOnce == 0) {
      hashes = new int[CAPACITY];
      keys = new byte[CAPACITY][];
      seen = new long[2 * SEEN_WORDS];
    }
    return false;
  }

  /**
   * Whether this thread has accessed the key before (see the class comment); marks it accessed.
   * Only for a buffering thread.
   */
  boolean seenBefore(int hash) {
    long[] seen = this.seen;
    int word = (hash & (SEEN_BITS - 1)) >>> 6;
    long mask = 1L << hash;
    int now = current + word;
    long bits = seen[now];
    if ((bits & mask) != 0) {
      return true;
    }
    seen[now] = bits | mask;
    boolean before = (seen[(SEEN_WORDS - current) + word] & mask) != 0;
    if (++seenCount == ROTATE_AFTER) {
      current = SEEN_WORDS - current;
      Arrays.fill(seen, current, current + SEEN_WORDS, 0L);
      seenCount = 0;
    }
    return before;
  }

  /** Buffers one access; true when the buffer is then full. */
  boolean add(byte[] key, int hash, boolean write) {
    int n = size;
    hashes[n] = hash;
    keys[n] = key;
    if (write) {
      writes |= 1 << n;
    }
    size = ++n;
    return n == CAPACITY;
  }

  void clear() {
    size = 0;
    writes = 0;
  }
}
