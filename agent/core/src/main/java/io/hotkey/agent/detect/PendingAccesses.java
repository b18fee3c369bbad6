package io.hotkey.agent.detect;

/**
 * One recording thread's accesses not yet counted in the sketch: up to {@link #limit} of them, each
 * as its key, the key's hash and whether it was a write. Owned by its thread alone (a {@code
 * ThreadLocal} of the detector), so it is written with plain stores.
 *
 * <p>Why buffer at all: a sketch bucket is a random cache line among hundreds of kilobytes, so
 * counting an access on its own costs a cache miss on the application's thread, which in a profiled
 * Lettuce service was more than the rest of the agent's work on that thread
 * (docs/performance-history.md, fourth round). Counted {@link #CAPACITY} at a time, the misses
 * overlap (see {@link HeavyKeeperTable#addAll}). This is the read buffer of Caffeine, minus its
 * losses: nothing is dropped, the thread that fills the buffer empties it.
 *
 * <p>A thread's buffer grows with what it has recorded: one access more per {@link #GROWTH}
 * recorded, up to {@link #CAPACITY}, so a thread that ends leaves at most one in {@code GROWTH} of
 * its accesses uncounted, and a thread per request (a virtual thread) none of its first {@code
 * GROWTH}. The growth is arithmetic, not a phase: a switch from counting one by one to buffering
 * would turn a branch the JIT had compiled as never taken, seconds into the application's traffic,
 * and throw away the compiled code of every command's path to be compiled again.
 *
 * <p>Keys are referenced, not copied: copying a prefix of each cost more than the garbage
 * collector's barrier on the reference store ({@code DetectorBenchmark.record1Thread}). A reference
 * is cleared once counted; a thread that stops recording keeps fewer than {@link #CAPACITY} keys
 * alive.
 */
final class PendingAccesses {

  /** Accesses buffered per thread: enough to overlap the misses, small enough to stay in cache. */
  static final int CAPACITY = 32;

  /** A thread's buffer holds one access more for each this many it has recorded. */
  static final int GROWTH = 32;

  private static final int GROWTH_SHIFT = Integer.numberOfTrailingZeros(GROWTH);

  /**
   * The stripe and decay coin of the owning thread, fixed at creation (see {@link StripedSketch}).
   */
  final int stripe;

  final int coin;

  final int[] hashes = new int[CAPACITY];

  final byte[][] keys = new byte[CAPACITY][];

  /** Bit i: access i was a write. */
  int writes;

  int size;

  /** Accesses this thread has recorded, wrapping past 2^32 (which only shrinks one buffer). */
  private int recorded;

  /** Keeps what {@link HeavyKeeperTable#addAll} read ahead, so that the reads stay. */
  int readAhead;

  /** The generation that was current when the oldest buffered access was recorded. */
  int generation;

  PendingAccesses(int stripe, int coin, int generation) {
    this.stripe = stripe;
    this.coin = coin;
    this.generation = generation;
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
    return n >= limit(recorded++);
  }

  /** How many accesses a thread buffers once it has recorded {@code recorded} before. */
  static int limit(int recorded) {
    return Math.min(CAPACITY, 1 + (recorded >>> GROWTH_SHIFT));
  }

  void clear() {
    size = 0;
    writes = 0;
  }
}
