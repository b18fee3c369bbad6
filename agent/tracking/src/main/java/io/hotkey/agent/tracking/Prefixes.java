package io.hotkey.agent.tracking;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The prefix arithmetic of {@code CLIENT TRACKING ... BCAST PREFIX}: Redis refuses prefixes of one
 * connection that overlap (one a prefix of another), and a registered prefix covers every key that
 * starts with it.
 */
final class Prefixes {
  /** The empty prefix, which covers every key. */
  static final byte[] EVERY_KEY = new byte[0];

  private Prefixes() {}

  /** The fewest prefixes that cover every key: keys that another key does not start. */
  static List<byte[]> minimal(List<byte[]> keys) {
    List<byte[]> sorted = new ArrayList<>(keys);
    sorted.sort(Arrays::compareUnsigned);
    List<byte[]> minimal = new ArrayList<>();
    byte[] last = null;
    for (byte[] key : sorted) {
      // in sorted order a key that starts with an earlier kept prefix follows it directly
      if (last == null || !startsWith(key, last)) {
        minimal.add(key);
        last = key;
      }
    }
    return minimal;
  }

  /** The keys that some prefix covers, as set elements for {@link #contains}. */
  static Set<ByteBuffer> covered(List<byte[]> keys, List<byte[]> prefixes) {
    Set<ByteBuffer> registered = new HashSet<>();
    int longest = 0;
    for (byte[] prefix : prefixes) {
      registered.add(ByteBuffer.wrap(prefix));
      longest = Math.max(longest, prefix.length);
    }
    Set<ByteBuffer> covered = new HashSet<>();
    for (byte[] key : keys) {
      for (int length = Math.min(key.length, longest); length >= 0; length--) {
        if (registered.contains(ByteBuffer.wrap(key, 0, length))) {
          covered.add(ByteBuffer.wrap(key));
          break;
        }
      }
    }
    return covered;
  }

  static boolean contains(Set<ByteBuffer> set, byte[] key) {
    return set.contains(ByteBuffer.wrap(key));
  }

  /** Whether either starts with the other, which Redis would refuse on one connection. */
  static boolean overlap(byte[] a, byte[] b) {
    return a.length <= b.length ? startsWith(b, a) : startsWith(a, b);
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}
