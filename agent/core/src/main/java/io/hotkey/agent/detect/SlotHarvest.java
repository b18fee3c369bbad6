package io.hotkey.agent.detect;

import java.util.Arrays;

/**
 * The candidates of one slot: every key the sketch named in a retired generation, with its count
 * and write count summed over the rows and stripes (a key's estimate, see {@link
 * HeavyKeeperTable}). Owned by the tick thread; refilled by each {@link #collect}.
 *
 * <p>An open-addressing map over flat arrays sized for every bucket of a generation, allocated
 * once. A candidate's key bytes are not copied: it points at the bucket that holds them, which
 * stays as it is until that generation is current again, two ticks later.
 */
final class SlotHarvest {

  private final int keyBytes;

  /** Candidate number + 1 per position, 0 = free. */
  private final int[] index;

  private final HeavyKeeperTable[] table; // the table holding the candidate's key bytes
  private final int[] bucket; // the bucket in that table
  private final int[] hash;
  private final int[] length;
  private final long[] count;
  private final long[] writes;
  private final int[] position; // in index, to clear it cheaply
  private int size;

  SlotHarvest(DetectorSettings settings) {
    keyBytes = settings.keyBytes();
    int capacity = settings.stripes() * settings.depth() * settings.width();
    index = new int[DetectorSettings.nextPow2(2 * capacity)];
    table = new HeavyKeeperTable[capacity];
    bucket = new int[capacity];
    hash = new int[capacity];
    length = new int[capacity];
    count = new long[capacity];
    writes = new long[capacity];
    position = new int[capacity];
  }

  /**
   * Reads every bucket of generation {@code gen} of every stripe that was counted into (see {@link
   * HeavyKeeperTable#countedMask}) into the candidates and zeroes its count, so that the tables are
   * empty when they become current again. Key bytes are left in place: the candidates point at
   * them, and a count of 0 marks a bucket free.
   */
  void collect(StripedSketch sketch, int gen) {
    for (int i = 0; i < size; i++) {
      index[position[i]] = 0;
    }
    size = 0;
    int mask = index.length - 1;
    for (int s = 0; s < sketch.stripes(); s++) {
      HeavyKeeperTable t = sketch.table(s, gen);
      int[] meta = t.meta;
      int buckets = t.buckets() & t.countedMask;
      t.countedMask = 0;
      for (int b = 0; b < buckets; b++) {
        int m = HeavyKeeperTable.metaOffset(b);
        int n = meta[m + HeavyKeeperTable.COUNT];
        if (n <= 0) {
          continue;
        }
        meta[m + HeavyKeeperTable.COUNT] = 0;
        if (!t.named(b)) {
          continue; // a key seen once in this slot and row: bytes never copied, of no interest
        }
        int w = Math.min(Math.max(meta[m + HeavyKeeperTable.WRITES], 0), n);
        int h = meta[m + HeavyKeeperTable.HASH];
        int len = t.length(b);
        int ko = t.keyOffset(b);
        int pos = KeyHashes.fmix(h) & mask;
        while (true) {
          int c = index[pos] - 1;
          if (c < 0) {
            if (len < 0 || (len <= keyBytes && KeyHashes.hash(t.keys, ko, len) != h)) {
              break; // torn by two threads sharing the stripe (or a caller's wrong hash): drop
            }
            c = size++;
            index[pos] = c + 1;
            position[c] = pos;
            table[c] = t;
            bucket[c] = b;
            hash[c] = h;
            length[c] = len;
            count[c] = n;
            writes[c] = w;
            break;
          }
          if (hash[c] == h && length[c] == len && keyEquals(c, t.keys, ko)) {
            count[c] += n;
            writes[c] += w;
            break;
          }
          pos = (pos + 1) & mask;
        }
      }
    }
  }

  /** Most candidates a slot can have: one per bucket of a generation. */
  int capacity() {
    return table.length;
  }

  int size() {
    return size;
  }

  int hash(int c) {
    return hash[c];
  }

  /** The key's full length. */
  int length(int c) {
    return length[c];
  }

  /** Counted accesses in the slot. */
  long count(int c) {
    return count[c];
  }

  /** Counted writes in the slot, at most {@link #count}. */
  long writes(int c) {
    return writes[c];
  }

  /** Whether candidate c's stored key bytes equal {@code keys[offset, ...)} (same length known). */
  boolean keyEquals(int c, byte[] keys, int offset) {
    HeavyKeeperTable t = table[c];
    int from = t.keyOffset(bucket[c]);
    int stored = Math.min(length[c], keyBytes);
    return Arrays.equals(t.keys, from, from + stored, keys, offset, offset + stored);
  }

  /** Copies candidate c's stored key bytes (at most {@code keyBytes}) to {@code keys[offset]}. */
  void copyKey(int c, byte[] keys, int offset) {
    HeavyKeeperTable t = table[c];
    System.arraycopy(t.keys, t.keyOffset(bucket[c]), keys, offset, Math.min(length[c], keyBytes));
  }

  /** Bytes of the candidate map (array headers not included), fixed at construction. */
  long memoryBytes() {
    return 4L * index.length + (long) capacity() * (5 * 4 + 2 * 8);
  }
}
