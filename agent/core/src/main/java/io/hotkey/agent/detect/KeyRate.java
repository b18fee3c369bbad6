package io.hotkey.agent.detect;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable snapshot of one key's counts over the current sliding window (as of the last {@link
 * HotKeyDetector#tick()}).
 *
 * <p>Keys longer than {@link DetectorSettings#keyBytes()} are tracked by their hash, full length
 * and first {@code keyBytes} bytes: for them {@link #truncated()} is true, {@link #key()} holds
 * only that prefix and {@link #keyLength()} the real length. Use {@link #matches(byte[], int)} to
 * test a command's key against a snapshot whichever the case.
 */
public final class KeyRate {

  private final byte[] key;
  private final int keyLength;
  private final int hash;
  private final long reads;
  private final long writes;
  private final double ratePerSecond;

  /**
   * @param key the key bytes (copied; for a truncated key, the stored prefix)
   * @param keyLength the real key length, {@code >= key.length}
   * @param hash {@link KeyHashes#hash(byte[])} of the full key
   */
  public KeyRate(
      byte[] key, int keyLength, int hash, long reads, long writes, double ratePerSecond) {
    if (keyLength < key.length) {
      throw new IllegalArgumentException("keyLength < key.length");
    }
    this.key = key.clone();
    this.keyLength = keyLength;
    this.hash = hash;
    this.reads = reads;
    this.writes = writes;
    this.ratePerSecond = ratePerSecond;
  }

  /** The key's bytes, a fresh copy on each call (the prefix only when {@link #truncated()}). */
  public byte[] key() {
    return key.clone();
  }

  /** The key as UTF-8 text (for logs and reports; invalid sequences become U+FFFD). */
  public String keyString() {
    String s = new String(key, StandardCharsets.UTF_8);
    return truncated() ? s + "...(" + keyLength + " bytes)" : s;
  }

  /** The full length of the key in bytes. */
  public int keyLength() {
    return keyLength;
  }

  /** True when only a prefix of the key was kept (the key is longer than the detector's cap). */
  public boolean truncated() {
    return keyLength > key.length;
  }

  /** {@link KeyHashes#hash(byte[])} of the full key. */
  public int hash() {
    return hash;
  }

  /**
   * Whether {@code other} (with {@code otherHash = KeyHashes.hash(other)}) is this key; for a
   * truncated key, whether hash, length and prefix agree (the detector's own notion of identity).
   */
  public boolean matches(byte[] other, int otherHash) {
    if (other == null || otherHash != hash || other.length != keyLength) {
      return false;
    }
    return Arrays.equals(key, 0, key.length, other, 0, key.length);
  }

  /** Accesses per second over the window: {@code (reads + writes) / window seconds}. */
  public double ratePerSecond() {
    return ratePerSecond;
  }

  /** Share of reads among the window's accesses, in [0, 1] (1 when there were none). */
  public double readShare() {
    long total = reads + writes;
    return total == 0 ? 1.0 : (double) reads / total;
  }

  /** Read accesses in the window (estimated from a sample when the detector samples). */
  public long reads() {
    return reads;
  }

  /** Write accesses in the window (estimated from a sample when the detector samples). */
  public long writes() {
    return writes;
  }

  /** Reads plus writes in the window. */
  public long count() {
    return reads + writes;
  }

  @Override
  public String toString() {
    return String.format(
        "%s rate=%.1f/s reads=%d writes=%d readShare=%.2f",
        keyString(), ratePerSecond, reads, writes, readShare());
  }
}
