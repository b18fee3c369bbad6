package io.hotkey.agent.detect;

import java.util.Arrays;

/**
 * One HeavyKeeper sketch (Gong et al., "HeavyKeeper: An Accurate Algorithm for Finding Top-k
 * Elephant Flows", USENIX ATC 2018): {@code depth} rows of {@code width} buckets, each bucket
 * holding one key (hash, and once seen twice its length and first {@code keyBytes} bytes), its
 * count and its write count.
 *
 * <p>Per access, row after row: an empty bucket is taken; a bucket holding the same key is
 * incremented; a bucket holding another key is <em>decayed</em> (its count decremented) with
 * probability {@code 1.08^-count}, and taken over by the newcomer when it reaches zero. Heavy keys
 * quickly reach counts where decay is practically impossible ({@code 1.08^-280 < 2^-31}), so they
 * keep their bucket and an almost exact count, while the long tail fights over the remaining
 * buckets.
 *
 * <p><b>Cascading rows.</b> Unlike the paper, where every row counts every access and a key's
 * estimate is its largest count, an access stops at the first row where its key holds or takes the
 * bucket: later rows are second chances for keys that lost their bucket in the earlier ones. Each
 * access is then counted at most once and a key's estimate is the <em>sum</em> of its counts over
 * the rows (the harvest computes it), which stays exact when a key moves between rows. Why: most
 * accesses in a skewed stream belong to keys that own their first-row bucket, so they touch one row
 * instead of {@code depth}, with the same precision and recall ({@code ZipfAccuracyTest}).
 *
 * <p><b>Threading.</b> A table is written by the thread(s) of its stripe only while it is the
 * detector's current generation, and read and cleared by the tick thread only two generations
 * later, so writers and the tick thread never touch a table at the same time except for a writer
 * stalled for more than a whole slot (then at worst a few counts land in the wrong slot). Two
 * threads share a stripe only when there are more recording threads than stripes; their plain
 * (non-atomic) read-modify-writes can then lose an increment or, in the rare case that both take
 * the same bucket at once, leave a torn key prefix in it. Both are accepted by design: a lost
 * increment is an error of one access among thousands for a hot key, and the harvest re-hashes a
 * stored key before believing it, so torn bytes are dropped. What is bought with this is a
 * recording path without atomics, locks or allocation.
 *
 * <p><b>Layout.</b> Everything lives in two flat arrays so that a bucket costs one cache line of
 * metadata plus its key bytes and there is no per-bucket object: {@code meta} holds 4 ints per
 * bucket ({@code hash, count, writes, name}), {@code keys} holds {@code keyBytes} bytes and {@code
 * lens} the key length per bucket (both written only when a bucket is named). Both arrays start and
 * end with 128 bytes of padding, so that the hot buckets of two stripes (written by different
 * cores) never share a cache line (Caffeine pads its striped buffers for the same reason).
 */
final class HeavyKeeperTable {

  /** Padding, in ints and bytes, before and after the data of each array (two cache lines). */
  static final int PAD_INTS = 32;

  static final int PAD_BYTES = 128;

  /** Offsets inside a bucket's 4 meta ints. */
  static final int HASH = 0;

  static final int COUNT = 1;
  static final int WRITES = 2;

  /** Hash of the key whose bytes and length are stored for this bucket. */
  static final int NAME = 3;

  /** Count at which a bucket's key bytes are copied. */
  static final int NAME_AT = 2;

  /**
   * Odd multipliers, one per row: row r's bucket is the top {@code log2(width)} bits of {@code hash
   * * ROW_SEEDS[r]}. Multiplicative hashing takes its best bits from the top; with a well-mixed
   * input hash the rows are practically independent.
   */
  private static final int[] ROW_SEEDS = {
    0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1, 0xD3A2646D, 0xFD7046C5, 0xB55A4F09
  };

  /** Decay base b of the probability b^-count. 1.08 is the paper's recommendation. */
  private static final double DECAY_BASE = 1.08;

  /**
   * {@code DECAY[c]} = {@code 2^31 * 1.08^-c}: a colliding access decays an incumbent with count c
   * when a 31-bit random number is below it. The table ends where the value reaches 0, so counts
   * past its length are never decayed (no random number drawn, no {@code Math.pow} on the hot
   * path).
   */
  private static final int[] DECAY = buildDecay();

  final int depth;
  final int width;
  final int keyBytes;
  private final int widthLog;
  private final int shift;
  final int[] meta;
  final byte[] keys;
  final int[] lens;

  /**
   * -1 once anything was counted into the table since its last harvest, else 0 (all its counts are
   * zero): the harvest's bound is masked with it, so that an idle application's tick reads no
   * bucket, and no branch flips the JIT's compiled harvest when traffic starts.
   */
  int countedMask;

  HeavyKeeperTable(int depth, int width, int keyBytes) {
    this.depth = depth;
    this.width = width;
    this.keyBytes = keyBytes;
    this.widthLog = Integer.numberOfTrailingZeros(width);
    this.shift = 32 - widthLog;
    int buckets = depth * width;
    this.meta = new int[PAD_INTS + buckets * 4 + PAD_INTS];
    this.keys = new byte[PAD_BYTES + buckets * keyBytes + PAD_BYTES];
    this.lens = new int[PAD_INTS + buckets + PAD_INTS];
  }

  /** Bytes retained by one table (array headers included). */
  static long bytes(int depth, int width, int keyBytes) {
    long buckets = (long) depth * width;
    return 3 * 16
        + 4L * (PAD_INTS + buckets * 4 + PAD_INTS)
        + 4L * (PAD_INTS + buckets + PAD_INTS)
        + (2L * PAD_BYTES + buckets * keyBytes);
  }

  int buckets() {
    return depth * width;
  }

  /** The bucket of {@code hash} in row {@code r}. */
  private int bucket(int hash, int r) {
    return (r << widthLog) | ((hash * ROW_SEEDS[r]) >>> shift);
  }

  /** Offset in {@code meta} of bucket {@code b}'s first int. */
  static int metaOffset(int b) {
    return PAD_INTS + (b << 2);
  }

  /** Offset in {@code keys} of bucket {@code b}'s first key byte. */
  int keyOffset(int b) {
    return PAD_BYTES + b * keyBytes;
  }

  /**
   * Counts one access. The hot path: per row visited one multiply and one cache line of metadata
   * (the first row only, for a key that owns its bucket there). Keys are compared by their 32-bit
   * hash only, and the key array is not even dereferenced unless a bucket gets named (see below),
   * so the cost does not depend on key length and a cold key costs no cache miss on its bytes. No
   * allocation, no atomic, no lock.
   *
   * <p><b>Identity by hash.</b> Two different keys are confused only if they land in the same
   * bucket <em>and</em> have the same 32-bit hash: for keys that share a bucket that is a 2^-21
   * event per collision (the bucket index already fixes 11 bits), i.e. a stray count now and then,
   * which is far below the sketch's own error. (HeavyKeeper itself uses 16-bit fingerprints.) Two
   * keys with exactly equal hashes are counted as one, like in any fingerprint sketch.
   *
   * <p><b>Lazy naming.</b> A bucket's key bytes are copied only when its count reaches {@link
   * #NAME_AT} (the key's second access while it holds the bucket), not when the bucket is taken.
   * Most claims in a long-tailed stream are by keys seen once, whose copy would be wasted. The
   * {@code NAME} slot remembers which hash the stored bytes belong to; the harvest skips buckets
   * whose count never reached {@code NAME_AT} (a single access in a slot is of no interest).
   *
   * @param coins the recording thread's decay coin: its xorshift state is {@code coins[coin]}
   */
  void add(byte[] key, int hash, boolean write, int[] coins, int coin) {
    final int[] meta = this.meta;
    final int w = write ? 1 : 0;
    for (int r = 0; r < depth; r++) {
      int b = bucket(hash, r);
      int m = PAD_INTS + (b << 2);
      int c = meta[m + COUNT];
      if (c == 0) {
        claim(m, hash, w);
        return;
      }
      if (meta[m + HASH] == hash) {
        // Count and writes are read together and written together: when two threads of a stripe
        // race on a bucket, one access is lost whole, and the read share stays unbiased (a count
        // from an early read with writes from a late one loses mostly reads).
        int writes = meta[m + WRITES];
        meta[m + COUNT] = ++c;
        meta[m + WRITES] = writes + w;
        if (c == NAME_AT && meta[m + NAME] != hash) {
          name(b, m, key, hash);
        }
        return;
      }
      if (c < DECAY.length && nextRandom31(coins, coin) < DECAY[c]) {
        // Another key owns the bucket and lost the coin flip: decay it, take over at zero.
        if (c == 1) {
          claim(m, hash, w);
          return;
        }
        meta[m + COUNT] = c - 1;
      }
    }
  }

  /**
   * Counts a thread's buffered accesses. First it only reads the first-row bucket of each: those
   * loads do not depend on one another, so the processor has their cache misses in flight together
   * instead of one after the other. Most accesses end in their first row (see the class comment),
   * whose line is then in cache when {@link #add} runs.
   *
   * @return a value derived from the loads, for the caller to keep so that they are not optimised
   *     away
   */
  int addAll(PendingAccesses pending, int[] coins) {
    countedMask = -1;
    final int[] meta = this.meta;
    final int[] hashes = pending.hashes;
    final int n = pending.size;
    int touched = 0;
    for (int i = 0; i < n; i++) {
      touched += meta[metaOffset(bucket(hashes[i], 0)) + COUNT];
    }
    for (int i = 0; i < n; i++) {
      add(pending.keys[i], hashes[i], (pending.writes >>> i & 1) != 0, coins, pending.coin);
      pending.keys[i] = null;
    }
    return touched;
  }

  /** Gives the bucket at meta offset m to the key with a count of 1 (bytes copied later). */
  private void claim(int m, int hash, int w) {
    meta[m + HASH] = hash;
    meta[m + WRITES] = w;
    meta[m + COUNT] = 1;
  }

  /** Stores the key's length and first {@code keyBytes} bytes in bucket b. */
  private void name(int b, int m, byte[] key, int hash) {
    int len = key.length;
    System.arraycopy(key, 0, keys, PAD_BYTES + b * keyBytes, Math.min(len, keyBytes));
    lens[PAD_INTS + b] = len;
    meta[m + NAME] = hash;
  }

  /** Whether bucket b's stored bytes and length belong to its current key. */
  boolean named(int b) {
    int m = metaOffset(b);
    return meta[m + NAME] == meta[m + HASH];
  }

  int length(int b) {
    return lens[PAD_INTS + b];
  }

  /**
   * Marsaglia xorshift32. Quality is irrelevant here (it only needs to be roughly uniform and
   * cheap). The state is the recording thread's, not the table's: with many cold keys nearly every
   * access decays another key's bucket, and two threads of one stripe writing a seed in the table
   * on different cores made its line travel between them on every access.
   */
  private static int nextRandom31(int[] coins, int coin) {
    int x = coins[coin];
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    coins[coin] = x;
    return x >>> 1;
  }

  private static int[] buildDecay() {
    int[] t = new int[1024];
    int n = 0;
    for (; n < t.length; n++) {
      long v = (long) (Math.pow(DECAY_BASE, -n) * (1L << 31));
      if (v <= 0) {
        break;
      }
      t[n] = (int) Math.min(Integer.MAX_VALUE, v);
    }
    return Arrays.copyOf(t, n);
  }
}
