package io.hotkey.agent.detect;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The recording side of the detector: where the application's threads count their accesses, in
 * {@link HeavyKeeperTable}s allocated once, one per stripe and generation.
 *
 * <ul>
 *   <li><b>Sampling</b>: one access in {@link DetectorSettings#sampling()} is counted, drawn from
 *       the thread's {@link ThreadLocalRandom}; an access not drawn reads nothing but the mask.
 *   <li><b>Pending buffers</b>: a thread's accesses are counted in batches (see {@link
 *       PendingAccesses}), so that the sketch's cache misses overlap instead of stalling the
 *       application's thread once per command.
 *   <li><b>Stripes</b>: each recording thread writes the stripe it was given when it first
 *       recorded, so threads on different stripes never write the same cache line and recording
 *       scales with cores. With more threads than stripes some share one; their racy increments may
 *       lose an update now and then (see {@link HeavyKeeperTable}), which is accepted instead of
 *       paying for atomics on every command.
 *   <li><b>Generations</b>: each stripe has three tables. Writers use {@code tables[generation]};
 *       the tick thread flips {@code generation} ({@link #retire()}) and reads the table that
 *       stopped being current one whole tick ago, so any writer that read the old generation just
 *       before the flip has long finished. That grace period replaces a lock or a per-write fence.
 *       The harvest clears it there, which makes it ready to be current again at the next flip.
 * </ul>
 */
final class StripedSketch {

  static final int GENERATIONS = 3;

  /**
   * Decay coins: 64 random states, each on a cache line of its own, handed out round-robin like the
   * stripes, so that threads sharing a stripe share a coin only beyond 64 threads (two that do race
   * on it harmlessly).
   */
  private static final int COIN_BITS = 6;

  private static final int COIN_STRIDE = 16;

  // ---- read by recording threads: written only in the constructor and by retire() ----

  /** {@code tables[stripe * GENERATIONS + generation]}. */
  private final HeavyKeeperTable[] tables;

  private final int[] coins = new int[COIN_STRIDE * ((1 << COIN_BITS) + 2)];
  private final int stripes;
  private final int stripeMask;

  /** {@code sampling - 1}: an access is counted when its random draw has none of these bits. */
  private final int sampleMask;

  private final ThreadLocal<PendingAccesses> pending =
      ThreadLocal.withInitial(this::newPendingAccesses);

  /** Threads that have recorded so far: hands out stripes and coins round-robin. */
  private final AtomicInteger recorders = new AtomicInteger();

  /** The generation writers record into; flipped by retire(). */
  private volatile int generation;

  StripedSketch(DetectorSettings settings) {
    stripes = settings.stripes();
    stripeMask = stripes - 1;
    sampleMask = settings.sampling() - 1;
    tables = new HeavyKeeperTable[stripes * GENERATIONS];
    for (int i = 0; i < tables.length; i++) {
      tables[i] = new HeavyKeeperTable(settings.depth(), settings.width(), settings.keyBytes());
    }
    for (int c = 1; c <= 1 << COIN_BITS; c++) {
      coins[c * COIN_STRIDE] = KeyHashes.fmix(c) | 1;
    }
  }

  /** See {@link HotKeyDetector#record}. */
  void record(byte[] key, int hash, boolean write) {
    if (sampleMask != 0 && (ThreadLocalRandom.current().nextInt() & sampleMask) != 0) {
      return;
    }
    PendingAccesses pending = this.pending.get();
    int gen = generation;
    if (gen != pending.generation) {
      flush(pending, gen);
    }
    if (pending.add(key, hash, write)) {
      flush(pending, gen);
    }
  }

  /** Counts a thread's pending accesses into generation {@code gen}, the current one. */
  private void flush(PendingAccesses pending, int gen) {
    if (pending.size > 0) {
      pending.readAhead += tables[pending.stripe * GENERATIONS + gen].addAll(pending, coins);
      pending.clear();
    }
    pending.generation = gen;
  }

  private PendingAccesses newPendingAccesses() {
    int n = recorders.getAndIncrement();
    return new PendingAccesses(
        n & stripeMask, COIN_STRIDE * (1 + (n & ((1 << COIN_BITS) - 1))), generation);
  }

  /**
   * Counts the calling thread's pending accesses, makes the next generation current and returns the
   * one that stopped being current a tick ago, to be harvested. For the tick thread only.
   */
  int retire() {
    flush(pending.get(), generation);
    int next = generation + 1 == GENERATIONS ? 0 : generation + 1;
    generation = next;
    return next + 1 == GENERATIONS ? 0 : next + 1;
  }

  int stripes() {
    return stripes;
  }

  HeavyKeeperTable table(int stripe, int generation) {
    return tables[stripe * GENERATIONS + generation];
  }

  /** Bytes of the tables and coins (array headers included), fixed at construction. */
  long memoryBytes() {
    HeavyKeeperTable t = tables[0];
    return (long) tables.length * (HeavyKeeperTable.bytes(t.depth, t.width, t.keyBytes) + 48)
        + 16
        + 4L * coins.length;
  }
}
