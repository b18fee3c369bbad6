package io.hotkey.agent.detect;

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
 * is dropped, the thread that fills the buffer empties it.
 *
 * <p>Keys are referenced, not copied: copying a prefix of each
 * cost twice what the garbage collector's barrier on the reference store costs (40 against 23 ns
 * per access in {@code DetectorBenchmark.record1Thread}). A reference is cleared once counted; a
 * thread that stops recording keeps fewer than {@link #CAPACITY} keys alive.
 */
final class PendingAccesses {

  /** Accesses buffered per thread: enough to overlap the misses, small enough to stay in cache. */
  static final int CAPACITY = 32;

  /** The stripe and decay coin of the owning thread, fixed at creation (see HotKeyDetector#record). */
  final int stripe;

  final int coin;
  final int[] hashes = new int[CAPACITY];
  final byte[][] keys = new byte[CAPACITY][];
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
