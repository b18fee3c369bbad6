package io.hotkey.agent.fleet;

/** How often this instance accessed a key in one window. */
public final class KeyCount {
  private final byte[] key;
  private final long count;

  public KeyCount(byte[] key, long count) {
    this.key = key;
    this.count = count;
  }

  public byte[] key() {
    return key;
  }

  public long count() {
    return count;
  }
}
