package io.hotkey.agent.detect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * Finds the keys whose access rate crosses a threshold, in memory fixed at construction.
 *
 * <h2>Data flow</h2>
 *
 * <pre>
 *  app threads ──record()──► own pending buffer ──(32 at a time)──► stripe[s].table[gen]
 *                                      (HeavyKeeper, plain int writes) │  gen flips every tick
 *                                                                      │  (volatile int)
 *  tick thread ──tick()──► harvest the table retired one tick earlier ──► candidates
 *                          (summed over rows and stripes), then clear it
 *                     ──► window: per key a ring of {@code slots} slot counts (fixed capacity,
 *                          the smallest entries give way to bigger newcomers)
 *                     ──► promote / demote ──► listener, the published hot keys
 * </pre>
 *
 * <h2>Why this shape</h2>
 *
 * <ul>
 *   <li><b>Pending buffers</b>: a thread's accesses are counted in batches (see {@link #record} and
 *       {@link PendingAccesses}), so that the sketch's cache misses overlap instead of stalling the
 *       application's thread once per command.
 *   <li><b>Stripes</b>: each recording thread writes the stripe it was given when it first
 *       recorded, so threads on different stripes never write the same cache line and recording
 *       scales with cores. With more threads than stripes some share one; their racy increments may
 *       lose an update now and then (see {@link HeavyKeeperTable}), which is accepted instead of
 *       paying for atomics on every command.
 *   <li><b>Generations</b>: each stripe has three tables. Writers use {@code tables[generation]};
 *       the tick thread flips {@code generation} and reads the table that stopped being current one
 *       whole tick ago, so any writer that read the old generation just before the flip has long
 *       finished. That grace period replaces a lock or a per-write fence. Clearing it there makes
 *       it ready to be current again at the next flip.
 *   <li><b>Sliding window</b>: a harvested table holds one slot ({@code window / slots}) of
 *       traffic. The tick thread keeps, per tracked key, the counts of the last {@code slots}
 *       slots; the window count is their sum and the rate is that sum divided by the window length.
 *       Because a slot is harvested one tick after it closes, rates lag by one slot.
 *   <li><b>Bounded memory</b>: tables ({@code 3 * stripes * depth * width} buckets with their key
 *       prefix), the tick thread's candidate map ({@code stripes * depth * width} entries) and the
 *       window ({@code capacity} keys × {@code slots} counters) are all allocated up front, as flat
 *       arrays. Nothing grows with the number of distinct keys; {@link #memoryBytes()} is computed
 *       once. The only allocations after construction are {@link KeyRate} lists (the hot keys,
 *       published by the tick; the top keys, made when asked for), and one {@link PendingAccesses}
 *       per recording thread (40 bytes, about 350 once it buffers; not included in {@link
 *       #memoryBytes()}).
 * </ul>
 *
 * <h2>Policy</h2>
 *
 * A key is promoted when its windowed rate is {@code >= threshold}; at most {@code topK} keys are
 * hot at once. When more keys qualify, higher rates win: a newcomer first takes a free place, then
 * the place of a hot key that is cooling down (below threshold), lowest rate first, then the place
 * of a hot key with a strictly lower rate. A hot key is demoted once it has stayed below threshold
 * for {@code coolDown} (measured with the detector's clock from the first tick that saw it below).
 * The listener is called from {@link #tick()} only.
 *
 * <h2>Keys</h2>
 *
 * Up to {@link DetectorSettings#keyBytes()} bytes of a key are stored. Longer keys are tracked by
 * hash + length + prefix and reported with {@link KeyRate#truncated()} true. The {@code hash} given
 * to {@link #record} must be {@link KeyHashes#hash(byte[])} of the key: it selects the buckets, it
 * is the key's identity on the recording path (see {@link HeavyKeeperTable#add}), and the tick
 * thread re-hashes stored keys to drop torn copies, so a key recorded with another hash function is
 * never reported. A key whose count in a bucket stays at 1 for a whole slot is not harvested (its
 * bytes are copied only at its second access, see {@link HeavyKeeperTable#add}).
 */
public final class HotKeyDetector {

  /**
   * Decay coins: 64 random states, each on a cache line of its own, handed out round-robin like the
   * stripes, so that threads sharing a stripe share a coin only beyond 64 threads (two that do race
   * on it harmlessly).
   */
  private static final int COIN_BITS = 6;

  private static final int COIN_STRIDE = 16;

  private static final int GENERATIONS = 3;
  private static final long NONE = Long.MIN_VALUE;
  private static final int INDEX_BITS = 20; // capacity <= 2^20

  private final DetectorSettings settings;
  private final LongSupplier nanoClock;
  private final HotKeyListener listener;

  // ---- shared with recording threads: written only in the constructor and by tick() ----

  /** {@code tables[stripe * 3 + generation]}. */
  private final HeavyKeeperTable[] tables;

  private final int[] coins = new int[COIN_STRIDE * ((1 << COIN_BITS) + 2)];
  private final int stripeMask;

  /** {@code sampling - 1}: an access is counted when its random draw has none of these bits. */
  private final int sampleMask;

  private final ThreadLocal<PendingAccesses> pending =
      ThreadLocal.withInitial(this::newPendingAccesses);

  /** Threads that have recorded so far: hands out stripes and coins round-robin. */
  private final AtomicInteger recorders = new AtomicInteger();

  /** The generation writers record into; flipped by tick(). */
  private volatile int generation;

  /** Published after every tick; read by hotKeys() from any thread. */
  private volatile List<KeyRate> hot = List.of();

  // ---- owned by the tick thread ----

  private final int stripes;
  private final int depth;
  private final int keyBytes;
  private final int slots;
  private final long windowNanos;
  private final double windowSeconds;

  /** Accesses one counted access stands for. */
  private final int sampling;

  private final long coolDownNanos;
  private final double threshold;
  private final int topK;
  private final long memoryBytes;

  /** Candidate map of one harvest: open addressing over {@code cIndex}. */
  private final int[] cIndex; // candidate number + 1, 0 = free

  private final int[] cTable; // table holding the candidate's key bytes
  private final int[] cBucket; // bucket in that table
  private final int[] cHash;
  private final int[] cLen;
  private final long[] cSum; // counts over every row of every stripe
  private final long[] cSumW;
  private final int[] cPos; // position in cIndex, to clear it cheaply
  private int cSize;
  private final long[] sortBuf;

  /** The window: {@code capacity} entries. */
  private final int capacity;

  private final byte[] wKeys;
  private final int[] wHash;
  private final int[] wLen;
  private final int[] wCounts; // [entry * slots + slot]
  private final int[] wWrites;
  private final long[] wTotal;
  private final long[] wTotalW;
  private final boolean[] wUsed;
  private final boolean[] wHot;
  private final long[] wBelowSince;
  private final int[] wIndex; // entry + 1, 0 = free; rebuilt each tick
  private final int[] wFree;
  private final long[] wSortBuf;
  private final long[] decideBuf;
  private int wFreeTop;
  private int hotCount;
  private int cursor;

  public HotKeyDetector(
      DetectorSettings settings, LongSupplier nanoClock, HotKeyListener listener) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.listener = listener == null ? HotKeyListener.NONE : listener;
    this.stripes = settings.stripes();
    this.stripeMask = stripes - 1;
    this.depth = settings.depth();
    this.keyBytes = settings.keyBytes();
    this.slots = settings.slots();
    this.windowNanos = settings.window().toNanos();
    this.windowSeconds = windowNanos / 1e9;
    this.sampling = settings.sampling();
    this.sampleMask = sampling - 1;
    this.coolDownNanos = settings.coolDown().toNanos();
    this.threshold = settings.threshold();
    this.topK = settings.topK();
    int width = settings.width();

    tables = new HeavyKeeperTable[stripes * GENERATIONS];
    for (int i = 0; i < tables.length; i++) {
      tables[i] = new HeavyKeeperTable(depth, width, keyBytes);
    }
    for (int c = 1; c <= 1 << COIN_BITS; c++) {
      coins[c * COIN_STRIDE] = KeyHashes.fmix(c) | 1;
    }

    int maxCandidates = stripes * depth * width;
    cIndex = new int[DetectorSettings.nextPow2(2 * maxCandidates)];
    cTable = new int[maxCandidates];
    cBucket = new int[maxCandidates];
    cHash = new int[maxCandidates];
    cLen = new int[maxCandidates];
    cSum = new long[maxCandidates];
    cSumW = new long[maxCandidates];
    cPos = new int[maxCandidates];
    sortBuf = new long[maxCandidates];

    capacity = settings.capacity();
    wKeys = new byte[capacity * keyBytes];
    wHash = new int[capacity];
    wLen = new int[capacity];
    wCounts = new int[capacity * slots];
    wWrites = new int[capacity * slots];
    wTotal = new long[capacity];
    wTotalW = new long[capacity];
    wUsed = new boolean[capacity];
    wHot = new boolean[capacity];
    wBelowSince = new long[capacity];
    wIndex = new int[DetectorSettings.nextPow2(2 * capacity)];
    wFree = new int[capacity];
    wSortBuf = new long[capacity];
    decideBuf = new long[capacity];
    for (int e = capacity - 1; e >= 0; e--) {
      wFree[wFreeTop++] = e;
    }

    long tableBytes = (long) tables.length * (HeavyKeeperTable.bytes(depth, width, keyBytes) + 48);
    long candidateBytes = 4L * cIndex.length + (long) maxCandidates * (5 * 4 + 2 * 8 + 8);
    long windowBytes =
        (long) capacity * keyBytes
            + (long) capacity * (4 + 4 + 8 + 8 + 1 + 1 + 8 + 4 + 8 + 8)
            + 8L * capacity * slots
            + 4L * wIndex.length;
    // Two lists of every key may be alive at once (topKeys' results, or the published hot keys and
    // the ones being built): per key a KeyRate, its key copy and a list slot.
    long keyListBytes = 2L * capacity * (48 + 16 + keyBytes + 8);
    this.memoryBytes =
        tableBytes + candidateBytes + windowBytes + keyListBytes + 16 + 4L * coins.length + 512;
  }

  public DetectorSettings settings() {
    return settings;
  }

  /**
   * Hot path: counts one access to {@code key}. Called for every Redis command's key.
   *
   * <p>Only one access in {@link DetectorSettings#sampling()} is counted, drawn at random (from the
   * thread's {@link ThreadLocalRandom}, so that no key or order of keys is favoured), and stands
   * for that many in every count and rate reported. An access that is not drawn costs the draw
   * alone: nothing of the detector's is read but the mask.
   *
   * <p>No lock, no atomic, no allocation but a thread's {@link PendingAccesses}: after its first
   * {@link PendingAccesses#COUNTED_AT_ONCE} accesses (counted one by one, so that short-lived
   * threads lose none), a thread's accesses go into its buffer (a {@code ThreadLocal} lookup and a
   * few plain stores), which is counted into the sketch, {@link PendingAccesses#CAPACITY} accesses
   * at a time, when it is full, when the thread records in a later slot than its oldest pending
   * access (then into that later slot, so a slot's rate includes at most one buffer per thread that
   * belonged to the previous one), or when the thread calls {@link #tick()}. A thread that stops
   * recording leaves at most {@code CAPACITY - 1} counted accesses pending until it records again,
   * or for good if it ends: too few to make a key hot or keep it hot. Safe from any number of
   * threads; never throws.
   *
   * <p>Stripes are handed out round-robin as threads first record, so the threads of a pool get
   * distinct stripes (and decay coins) up to the number of stripes (of coins).
   *
   * @param key the key bytes, not null; not modified, read again when counted and not retained
   *     after (a prefix is copied when a bucket is named). Should the array change before it is
   *     counted (an application reusing a byte[] key it gave Jedis), the count is lost: the harvest
   *     re-hashes the bytes it stored and drops a mismatch (a key longer than {@code keyBytes} can
   *     then be reported with the changed prefix).
   * @param hash {@link KeyHashes#hash(byte[])} of {@code key}
   * @param write whether the command writes the key
   */
  public void record(byte[] key, int hash, boolean write) {
    if (sampleMask != 0 && (ThreadLocalRandom.current().nextInt() & sampleMask) != 0) {
      return;
    }
    PendingAccesses pending = this.pending.get();
    int gen = generation;
    if (!pending.buffers()) {
      tables[pending.stripe * GENERATIONS + gen].add(key, hash, write, coins, pending.coin);
      return;
    }
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
   * Advances the window by one slot: flips the generation, harvests the slot that closed one tick
   * ago, recomputes rates, promotes and demotes (calling the listener), publishes the hot keys. To
   * be called every {@link DetectorSettings#slot()} by one thread at a time (it is synchronized
   * only to make misuse harmless; recording never takes this lock). Never throws because of the
   * listener.
   */
  public synchronized void tick() {
    flush(pending.get(), generation);
    int next = generation + 1 == GENERATIONS ? 0 : generation + 1;
    generation = next;
    int harvestGen = next + 1 == GENERATIONS ? 0 : next + 1;

    cursor = cursor + 1 == slots ? 0 : cursor + 1;
    expireSlot(cursor);
    harvest(harvestGen);
    int newCount = mergeCandidates();
    admit(newCount);
    rebuildIndex();
    decide(nanoClock.getAsLong());
  }

  /**
   * Up to {@code n} tracked keys by windowed rate, highest first (as of the last tick). Built when
   * asked for, under the tick's lock: the window holds up to {@code capacity} keys, and a list of
   * them all made at every tick (ten times a second) for a report read once a minute was most of
   * the tick's allocation.
   */
  public synchronized List<KeyRate> topKeys(int n) {
    int used = sortedByCount(e -> true);
    int size = Math.max(0, Math.min(n, used));
    KeyRate[] top = new KeyRate[size];
    for (int i = 0; i < size; i++) {
      top[i] = keyRate(indexOf(wSortBuf[used - 1 - i]));
    }
    return Collections.unmodifiableList(Arrays.asList(top));
  }

  /** The currently promoted keys, highest rate first (as of the last tick). */
  public List<KeyRate> hotKeys() {
    return hot;
  }

  /**
   * The detector's footprint in bytes, computed at construction from the settings: sketch tables,
   * the tick thread's candidate map and window, and the lists of keys it hands out. It does not
   * depend on the traffic (object headers and alignment estimated for a 64-bit JVM with compressed
   * oops).
   */
  public long memoryBytes() {
    return memoryBytes;
  }

  // ------------------------------------------------------------------ tick internals

  private void expireSlot(int slot) {
    for (int e = 0; e < capacity; e++) {
      if (wUsed[e]) {
        int i = e * slots + slot;
        wTotal[e] -= wCounts[i];
        wTotalW[e] -= wWrites[i];
        wCounts[i] = 0;
        wWrites[i] = 0;
      }
    }
  }

  /**
   * Reads every bucket of generation {@code gen} of every stripe into the candidate map (a key's
   * estimate is the sum of its counts over the rows and stripes, see {@link HeavyKeeperTable}) and
   * zeroes the counts so the tables are empty when they become current again. Key bytes are left in
   * place: the candidates point at them until the end of this tick, and a count of 0 marks a bucket
   * free.
   */
  private void harvest(int gen) {
    for (int i = 0; i < cSize; i++) {
      cIndex[cPos[i]] = 0;
    }
    cSize = 0;
    int mask = cIndex.length - 1;
    for (int s = 0; s < stripes; s++) {
      int tableId = s * GENERATIONS + gen;
      HeavyKeeperTable t = tables[tableId];
      int[] meta = t.meta;
      int buckets = t.buckets();
      for (int b = 0; b < buckets; b++) {
        int m = HeavyKeeperTable.metaOffset(b);
        int count = meta[m + HeavyKeeperTable.COUNT];
        if (count <= 0) {
          continue;
        }
        meta[m + HeavyKeeperTable.COUNT] = 0;
        if (!t.named(b)) {
          continue; // a key seen once in this slot and row: bytes never copied, of no interest
        }
        int writes = Math.min(Math.max(meta[m + HeavyKeeperTable.WRITES], 0), count);
        int hash = meta[m + HeavyKeeperTable.HASH];
        int len = t.length(b);
        int cmp = Math.min(len, keyBytes);
        int ko = t.keyOffset(b);
        int pos = KeyHashes.fmix(hash) & mask;
        while (true) {
          int c = cIndex[pos] - 1;
          if (c < 0) {
            if (len < 0 || (len <= keyBytes && KeyHashes.hash(t.keys, ko, len) != hash)) {
              break; // torn by two threads sharing the stripe (or a caller's wrong hash): drop
            }
            c = cSize++;
            cIndex[pos] = c + 1;
            cPos[c] = pos;
            cTable[c] = tableId;
            cBucket[c] = b;
            cHash[c] = hash;
            cLen[c] = len;
            cSum[c] = count;
            cSumW[c] = writes;
            break;
          }
          if (cHash[c] == hash && cLen[c] == len && sameKey(c, t.keys, ko, cmp)) {
            cSum[c] += count;
            cSumW[c] += writes;
            break;
          }
          pos = (pos + 1) & mask;
        }
      }
    }
  }

  private boolean sameKey(int c, byte[] keys, int ko, int cmp) {
    HeavyKeeperTable ct = tables[cTable[c]];
    int co = ct.keyOffset(cBucket[c]);
    return Arrays.equals(ct.keys, co, co + cmp, keys, ko, ko + cmp);
  }

  /**
   * Adds the candidates of keys already in the window to the current slot; returns how many
   * candidates are new (their numbers are moved to the front of {@code sortBuf}).
   */
  private int mergeCandidates() {
    int fresh = 0;
    int mask = wIndex.length - 1;
    for (int c = 0; c < cSize; c++) {
      HeavyKeeperTable t = tables[cTable[c]];
      int ko = t.keyOffset(cBucket[c]);
      int cmp = Math.min(cLen[c], keyBytes);
      int e = -1;
      for (int pos = KeyHashes.fmix(cHash[c]) & mask; ; pos = (pos + 1) & mask) {
        int x = wIndex[pos] - 1;
        if (x < 0) {
          break;
        }
        if (wHash[x] == cHash[c]
            && wLen[x] == cLen[c]
            && Arrays.equals(wKeys, x * keyBytes, x * keyBytes + cmp, t.keys, ko, ko + cmp)) {
          e = x;
          break;
        }
      }
      if (e >= 0) {
        addToSlot(e, c);
      } else {
        sortBuf[fresh++] = (Math.min(cSum[c], Integer.MAX_VALUE) << INDEX_BITS) | c;
      }
    }
    return fresh;
  }

  private void addToSlot(int e, int c) {
    int i = e * slots + cursor;
    int add = (int) Math.min(cSum[c], Integer.MAX_VALUE - (long) wCounts[i]);
    int addW = (int) Math.min(cSumW[c], add);
    wCounts[i] += add;
    wWrites[i] += addW;
    wTotal[e] += add;
    wTotalW[e] += addW;
  }

  /**
   * Gives window entries to new candidates, biggest first: free entries, then entries of non-hot
   * keys whose window count is smaller than the newcomer's count (smallest first). Entries whose
   * window emptied are freed first. Hot keys are never evicted (they keep their counts).
   */
  private void admit(int fresh) {
    int evictables = 0;
    for (int e = 0; e < capacity; e++) {
      if (wUsed[e] && !wHot[e]) {
        if (wTotal[e] <= 0) {
          free(e);
        } else {
          wSortBuf[evictables++] = (Math.min(wTotal[e], Integer.MAX_VALUE) << INDEX_BITS) | e;
        }
      }
    }
    if (fresh == 0) {
      return;
    }
    Arrays.sort(sortBuf, 0, fresh);
    boolean evictSorted = false;
    int victim = 0;
    for (int i = fresh - 1; i >= 0; i--) {
      int c = indexOf(sortBuf[i]);
      long count = sortBuf[i] >>> INDEX_BITS;
      int e;
      if (wFreeTop > 0) {
        e = wFree[--wFreeTop];
      } else {
        if (!evictSorted) {
          Arrays.sort(wSortBuf, 0, evictables);
          evictSorted = true;
        }
        if (victim >= evictables || (wSortBuf[victim] >>> INDEX_BITS) >= count) {
          return; // every remaining newcomer is smaller than every remaining entry
        }
        e = indexOf(wSortBuf[victim++]);
        free(e);
        e = wFree[--wFreeTop];
      }
      HeavyKeeperTable t = tables[cTable[c]];
      int cmp = Math.min(cLen[c], keyBytes);
      System.arraycopy(t.keys, t.keyOffset(cBucket[c]), wKeys, e * keyBytes, cmp);
      wHash[e] = cHash[c];
      wLen[e] = cLen[c];
      wUsed[e] = true;
      wHot[e] = false;
      wBelowSince[e] = NONE;
      addToSlot(e, c);
    }
  }

  private void free(int e) {
    wUsed[e] = false;
    wHot[e] = false;
    wTotal[e] = 0;
    wTotalW[e] = 0;
    Arrays.fill(wCounts, e * slots, e * slots + slots, 0);
    Arrays.fill(wWrites, e * slots, e * slots + slots, 0);
    wFree[wFreeTop++] = e;
  }

  private void rebuildIndex() {
    Arrays.fill(wIndex, 0);
    int mask = wIndex.length - 1;
    for (int e = 0; e < capacity; e++) {
      if (wUsed[e]) {
        int pos = KeyHashes.fmix(wHash[e]) & mask;
        while (wIndex[pos] != 0) {
          pos = (pos + 1) & mask;
        }
        wIndex[pos] = e + 1;
      }
    }
  }

  private double rate(int e) {
    return (double) wTotal[e] * sampling / windowSeconds;
  }

  /** Promotion, demotion, listener calls and snapshot publication. */
  private void decide(long now) {
    List<KeyRate> demoted = new ArrayList<>();
    List<KeyRate> promoted = new ArrayList<>();
    int candidates = 0;
    int hot = 0;
    long[] hotOrder = new long[hotCount];
    for (int e = 0; e < capacity; e++) {
      if (!wUsed[e]) {
        continue;
      }
      boolean above = rate(e) >= threshold;
      if (wHot[e]) {
        if (above) {
          wBelowSince[e] = NONE;
        } else {
          if (wBelowSince[e] == NONE) {
            wBelowSince[e] = now;
          }
          if (now - wBelowSince[e] >= coolDownNanos) {
            demoted.add(demote(e));
            continue;
          }
        }
        // Victim order: cooling keys first, then by window count, lowest first.
        long cooling = wBelowSince[e] == NONE ? 1L : 0L;
        hotOrder[hot++] =
            (cooling << 52) | (Math.min(wTotal[e], Integer.MAX_VALUE) << INDEX_BITS) | e;
      } else if (above) {
        decideBuf[candidates++] = (Math.min(wTotal[e], Integer.MAX_VALUE) << INDEX_BITS) | e;
      }
    }
    if (candidates > 0) {
      Arrays.sort(decideBuf, 0, candidates);
      Arrays.sort(hotOrder, 0, hot);
      int victim = 0;
      for (int i = candidates - 1; i >= 0; i--) {
        int e = indexOf(decideBuf[i]);
        if (hotCount >= topK) {
          if (victim >= hot) {
            break;
          }
          long v = hotOrder[victim];
          int ve = indexOf(v);
          boolean cooling = (v >>> 52) == 0;
          if (!cooling && wTotal[ve] >= wTotal[e]) {
            break; // the remaining candidates are not hotter than the coldest hot key
          }
          victim++;
          demoted.add(demote(ve));
        }
        wHot[e] = true;
        wBelowSince[e] = NONE;
        hotCount++;
        promoted.add(keyRate(e));
      }
    }
    publish();
    for (KeyRate k : demoted) {
      try {
        listener.onDemoted(k);
      } catch (Throwable ignored) {
        // The agent never breaks the application; a failing listener only loses its own events.
      }
    }
    for (KeyRate k : promoted) {
      try {
        listener.onPromoted(k);
      } catch (Throwable ignored) {
        // See above.
      }
    }
  }

  private KeyRate demote(int e) {
    wHot[e] = false;
    wBelowSince[e] = NONE;
    hotCount--;
    return keyRate(e);
  }

  private KeyRate keyRate(int e) {
    int stored = Math.min(wLen[e], keyBytes);
    byte[] key = Arrays.copyOfRange(wKeys, e * keyBytes, e * keyBytes + stored);
    long writes = Math.min(Math.max(wTotalW[e], 0), wTotal[e]);
    return new KeyRate(
        key, wLen[e], wHash[e], (wTotal[e] - writes) * sampling, writes * sampling, rate(e));
  }

  private void publish() {
    int n = sortedByCount(e -> wHot[e]);
    KeyRate[] hotKeys = new KeyRate[n];
    for (int i = 0; i < n; i++) {
      hotKeys[i] = keyRate(indexOf(wSortBuf[n - 1 - i]));
    }
    hot = Collections.unmodifiableList(Arrays.asList(hotKeys));
  }

  /**
   * Sorts the window entries that pass {@code filter} by window count, lowest first, into {@code
   * wSortBuf}; returns how many there are (see {@link #indexOf}).
   */
  private int sortedByCount(IntPredicate filter) {
    int n = 0;
    for (int e = 0; e < capacity; e++) {
      if (wUsed[e] && filter.test(e)) {
        wSortBuf[n++] = (Math.min(wTotal[e], Integer.MAX_VALUE) << INDEX_BITS) | e;
      }
    }
    Arrays.sort(wSortBuf, 0, n);
    return n;
  }

  /** The index packed into the low {@code INDEX_BITS} of a sort key (a count above it). */
  private static int indexOf(long packed) {
    return (int) (packed & ((1 << INDEX_BITS) - 1));
  }
}
