package io.hotkey.agent.detect;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 32-bit key hash shared by the whole agent (detector, near cache, command table).
 *
 * <p>It is MurmurHash3 x86_32 with a fixed seed: four bytes per step (one little-endian int read
 * through a byte-array view {@link VarHandle}, which the JIT turns into a single load), a
 * multiply-rotate-multiply mix per block and the full {@code fmix32} avalanche at the end. The
 * result is <b>stable</b> across JVMs, releases and platforms (the byte order of the block read is
 * fixed to little endian), well mixed in every bit, so callers may take any bits of it (the
 * detector uses the high bits of several multiplicative re-hashes, a hash table may use the low
 * bits). It is not a cryptographic hash: an adversary who controls key names can make collisions,
 * which for the detector only means that the colliding keys share sketch buckets.
 *
 * <p>Cost: one multiply-rotate step per 4 bytes and the final mix, no allocation. Compute it once
 * per command and pass it to {@link HotKeyDetector#record(byte[], int, boolean)}.
 */
public final class KeyHashes {

  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final int SEED = 0x9747b28c;
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private KeyHashes() {}

  /** Hash of the whole array. {@code null} hashes like an empty key. */
  public static int hash(byte[] key) {
    return key == null ? hash(new byte[0], 0, 0) : hash(key, 0, key.length);
  }

  /** Hash of {@code key[offset, offset + length)}; equal to {@code hash(copyOfRange(...))}. */
  public static int hash(byte[] key, int offset, int length) {
    int h = SEED;
    int i = offset;
    int blockEnd = offset + (length & ~3);
    for (; i < blockEnd; i += 4) {
      int k = (int) INT_LE.get(key, i);
      k *= C1;
      k = Integer.rotateLeft(k, 15);
      k *= C2;
      h ^= k;
      h = Integer.rotateLeft(h, 13);
      h = h * 5 + 0xe6546b64;
    }
    int k = 0;
    switch (length & 3) {
      case 3:
        k ^= (key[i + 2] & 0xff) << 16;
      // fall through
      case 2:
        k ^= (key[i + 1] & 0xff) << 8;
      // fall through
      case 1:
        k ^= key[i] & 0xff;
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        k *= C2;
        h ^= k;
        break;
      default:
        break;
    }
    h ^= length;
    return fmix(h);
  }

  /** MurmurHash3's finaliser: every input bit affects every output bit with probability ~1/2. */
  static int fmix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }
}
