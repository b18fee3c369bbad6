package io.hotkey.agent.idempotency;

import java.util.Arrays;

/**
 * A bounded copy of the bytes a response streams: keeps up to the limit, then only counts. Not
 * thread-safe.
 */
public final class BodyCapture {
  private final long limit;
  private byte[] bytes = new byte[256];
  private int size;
  private long total;

  public BodyCapture(long limit) {
    this.limit = limit;
  }

  public void append(byte[] data, int offset, int length) {
    total += length;
    if (total > limit) {
      bytes = null;
      return;
    }
    if (size + length > bytes.length) {
      bytes =
          Arrays.copyOf(
              bytes, (int) Math.min(limit, Math.max(bytes.length * 2L, size + (long) length)));
    }
    System.arraycopy(data, offset, bytes, size, length);
    size += length;
  }

  public void append(int b) {
    append(new byte[] {(byte) b}, 0, 1);
  }

  /** Bytes written so far, including those beyond the limit. */
  public long total() {
    return total;
  }

  public boolean overflowed() {
    return total > limit;
  }

  /** The captured body, or null when it overflowed. */
  public byte[] bytes() {
    return overflowed() ? null : Arrays.copyOf(bytes, size);
  }
}
