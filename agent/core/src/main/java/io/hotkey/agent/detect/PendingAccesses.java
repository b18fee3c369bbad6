package io.hotkey.agent.detect;

/**
 * One recording thread's accesses not yet counted in the sketch: up to {@link #CAPACITY} of them,
 * each as its key, the key's hash and whether it was a write. Owned by its thread alone (a {@code
 * ThreadLocal} of the detector), so it is written with plain stores.
 *
 * <p>Why buffer at all: a sketch bucket is a random cache line among hundreds of kilobytes, so
 * counting an access on its own costs a cache miss on the application's thread, which in a profiled
 * Lettuce service was more than the rest of the agent's work on that thread
 * (docs/performance-history.md, fourth round). Counted {@link #CAPACITY} at a time, the misses
 * overlap (see {@link HeavyKeeperTable#addAll}). This is the read buffer of Caffeine, minus its
 * losses: nothing is dropped, the thread that fills the buffer empties it; and a thread buffers
 * only once it has recorded {@link #COUNTED_AT_ONCE} accesses, so short-lived threads lose nothing.
 *
 * <p>Keys are referenced, not copied: copying a prefix of each cost more than the garbage
 * collector's barrier on the reference store ({@code DetectorBenchmark.record1Thread}). A reference
 * is cleared once counted; a thread that stops recording keeps fewer than {@link #CAPACITY} keys
 * alive.
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

  /**
   * The stripe and decay coin of the owning thread, fixed at creation (see {@link StripedSketch}).
   */
  final int stripe;

  final int coin;

  /** Accesses still to be counted at once before this thread buffers. */
  int countedAtOnce = COUNTED_AT_ONCE;

  /** Allocated when the thread starts buffering. */
  int[] hashes;

  byte[][] keys;

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
    }
    return false;
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
