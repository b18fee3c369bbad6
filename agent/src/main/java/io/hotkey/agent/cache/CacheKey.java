package io.hotkey.agent.cache;

import java.util.Arrays;

/**
 * Identifies one cacheable reply: where it came from (server endpoint, database, protocol) and the
 * exact command that produced it. Argument bytes are copied because binary client APIs pass the
 * application's own arrays, which it may reuse.
 */
public final class CacheKey {
  private final String namespace;
  private final byte[][] argv;
  private final int hash;

  public CacheKey(String namespace, byte[][] argv) {
    this.namespace = namespace;
    this.argv = new byte[argv.length][];
    int h = namespace.hashCode();
    for (int i = 0; i < argv.length; i++) {
      this.argv[i] = argv[i].clone();
      h = 31 * h + Arrays.hashCode(argv[i]);
    }
    this.hash = h;
  }

  /** Bytes this key keeps alive, for the cache's weigher. */
  int weight() {
    int bytes = 48 + 2 * namespace.length();
    for (byte[] arg : argv) {
      bytes += 16 + arg.length;
    }
    return bytes;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof CacheKey)) {
      return false;
    }
    CacheKey that = (CacheKey) other;
    return hash == that.hash && namespace.equals(that.namespace) && Arrays.deepEquals(argv, that.argv);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
