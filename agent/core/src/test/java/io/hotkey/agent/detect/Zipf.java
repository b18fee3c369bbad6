package io.hotkey.agent.detect;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Seeded Zipf stream over {@code n} distinct String keys (UTF-8 bytes), for tests and benchmarks.
 */
public final class Zipf {

  private final double[] cdf;
  private final byte[][] keys;
  private final int[] hashes;

  /** Key of rank r (1 = most frequent) has probability proportional to {@code r^-exponent}. */
  public Zipf(int n, double exponent, long seed) {
    cdf = new double[n];
    double sum = 0;
    for (int r = 1; r <= n; r++) {
      sum += Math.pow(r, -exponent);
      cdf[r - 1] = sum;
    }
    for (int i = 0; i < n; i++) {
      cdf[i] /= sum;
    }
    // Names do not reveal the rank and have realistic, varied lengths.
    Random names = new Random(seed ^ 0x5DEECE66DL);
    keys = new byte[n][];
    hashes = new int[n];
    for (int i = 0; i < n; i++) {
      String name =
          "app:"
              + (names.nextBoolean() ? "product:" : "user:session:")
              + i
              + ":"
              + Long.toHexString(names.nextLong());
      keys[i] = name.getBytes(StandardCharsets.UTF_8);
      hashes[i] = KeyHashes.hash(keys[i]);
    }
  }

  /** Rank index (0-based) of the next sample. */
  private int next(Random random) {
    double u = random.nextDouble();
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  public byte[] key(int index) {
    return keys[index];
  }

  public int hash(int index) {
    return hashes[index];
  }

  /** {@code count} samples drawn with {@code new Random(seed)}. */
  public int[] sample(int count, long seed) {
    Random random = new Random(seed);
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = next(random);
    }
    return out;
  }
}
