package io.hotkey.agent.detect;

/**
 * Sort keys that order window entries or candidates by count with a plain {@code long[]} sort: the
 * count (capped at {@link Integer#MAX_VALUE}, 31 bits) above the entry or candidate number in the
 * low {@link #INDEX_BITS}, which leaves bit 61 for a caller's own first criterion. Sorting
 * primitives allocates nothing on the tick.
 */
final class CountOrder {

  /** Enough for the largest harvest: stripes × depth × width {@code <= 2^6 × 2^3 × 2^20}. */
  static final int INDEX_BITS = 30;

  /** The lowest bit above every count. */
  static final int FREE_BIT = INDEX_BITS + 31;

  private CountOrder() {}

  static long of(long count, int index) {
    return (Math.min(count, Integer.MAX_VALUE) << INDEX_BITS) | index;
  }

  static int index(long packed) {
    return (int) (packed & ((1 << INDEX_BITS) - 1));
  }

  static long count(long packed) {
    return packed >>> INDEX_BITS;
  }
}
