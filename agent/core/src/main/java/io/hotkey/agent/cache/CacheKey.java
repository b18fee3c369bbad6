package io.hotkey.agent.cache;

import java.util.Arrays;

/**
 * Identifies one cacheable reply: where it came from (client library, server endpoint, database,
 * protocol) and the exact command that produced it. A key built for a lookup borrows the caller's
 * argument arrays; a key that is stored owns copies, because binary client APIs pass the
 * application's own arrays, which it may reuse.
 */
public final class CacheKey {
  private final String namespace;
  private final int database;
  private final byte[][] argv;
  private final long keyPositions;
  private final int keyCount;
  private final int hash;

  /**
   * @param namespace the client, server and connection identity the reply belongs to
   * @param database the database the command ran in (part of {@code namespace} too), where the
   *     agent's own connection asks about its keys
   * @param keyPositions one bit per argv index (below 64) that holds a key
   * @param keyHashes {@code KeyHashes.hash} of those keys, in argv order; the hash reuses them
   *     instead of hashing the key bytes a second time on every hit
   */
  public CacheKey(
      String namespace, int database, byte[][] argv, long keyPositions, int[] keyHashes) {
    this.namespace = namespace;
    this.database = database;
    this.argv = argv;
    this.keyPositions = keyPositions;
    this.keyCount = keyHashes.length;
    int h = namespace.hashCode();
    for (int keyHash : keyHashes) {
      h = 31 * h + keyHash;
    }
    for (int i = 0; i < argv.length; i++) {
      if (i >= 64 || (keyPositions & (1L << i)) == 0) {
        h = 31 * h + Arrays.hashCode(argv[i]);
      }
    }
    this.hash = h;
  }

  private CacheKey(
      String namespace, int database, byte[][] argv, long keyPositions, int keyCount, int hash) {
    this.namespace = namespace;
    this.database = database;
    this.argv = argv;
    this.keyPositions = keyPositions;
    this.keyCount = keyCount;
    this.hash = hash;
  }

  int database() {
    return database;
  }

  /**
   * The command's keys, or null if some sit beyond the 64 positions {@code keyPositions} can name.
   */
  byte[][] keys() {
    if (Long.bitCount(keyPositions) != keyCount) {
      return null;
    }
    byte[][] keys = new byte[keyCount][];
    int n = 0;
    for (int i = 0; i < argv.length && i < 64; i++) {
      if ((keyPositions & (1L << i)) != 0) {
        keys[n++] = argv[i];
      }
    }
    return keys;
  }

  /** An equal key that shares no array with the caller. */
  CacheKey ownCopy() {
    byte[][] copy = new byte[argv.length][];
    for (int i = 0; i < argv.length; i++) {
      copy[i] = argv[i].clone();
    }
    return new CacheKey(namespace, database, copy, keyPositions, keyCount, hash);
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
    return hash == that.hash && namespace.equals(that.namespace) && sameArguments(argv, that.argv);
  }

  /** Arrays.deepEquals takes a reflective path per element (Class.cast, getComponentType). */
  private static boolean sameArguments(byte[][] a, byte[][] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (!Arrays.equals(a[i], b[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
