package io.hotkey.agent.redis;

import java.nio.charset.StandardCharsets;

/** Allocation-free ASCII helpers for command names and option tokens. */
final class Bytes {

  static final byte[] DB = ascii("DB");
  static final byte[] LIMIT = ascii("LIMIT");
  static final byte[] GET = ascii("GET");
  static final byte[] BY = ascii("BY");
  static final byte[] STORE = ascii("STORE");
  static final byte[] STOREDIST = ascii("STOREDIST");
  static final byte[] KEYS = ascii("KEYS");
  static final byte[] AUTH = ascii("AUTH");
  static final byte[] AUTH2 = ascii("AUTH2");
  static final byte[] BLOCK = ascii("BLOCK");
  static final byte[] COUNT = ascii("COUNT");
  static final byte[] GROUP = ascii("GROUP");
  static final byte[] NOACK = ascii("NOACK");
  static final byte[] STREAMS = ascii("STREAMS");

  private Bytes() {}

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * ASCII upper case of one byte; other bytes unchanged (like Redis' strcasecmp on command names).
   */
  static int upper(int b) {
    return b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b;
  }

  /** {@code arg} equals the upper-case token {@code upper}, ignoring ASCII case. Null-safe. */
  static boolean eqIgnoreCase(byte[] arg, byte[] upper) {
    if (arg == null || arg.length != upper.length) {
      return false;
    }
    for (int i = 0; i < upper.length; i++) {
      if (upper(arg[i]) != upper[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Strict decimal parse as Redis' string2ll: "0" or an optional '-' then [1-9][0-9]*, no spaces,
   * no '+', no leading zeros. Returns Long.MIN_VALUE when the argument is not such a number (or
   * does not fit in a long).
   */
  static long parseLong(byte[] s) {
    if (s == null || s.length == 0 || s.length > 20) {
      return Long.MIN_VALUE;
    }
    if (s.length == 1 && s[0] == '0') {
      return 0;
    }
    int i = 0;
    boolean negative = false;
    if (s[0] == '-') {
      negative = true;
      i = 1;
      if (s.length == 1) {
        return Long.MIN_VALUE;
      }
    }
    if (s[i] < '1' || s[i] > '9') {
      return Long.MIN_VALUE;
    }
    long v = 0;
    for (; i < s.length; i++) {
      int d = s[i] - '0';
      if (d < 0 || d > 9) {
        return Long.MIN_VALUE;
      }
      if (v > (Long.MAX_VALUE - d) / 10) {
        return Long.MIN_VALUE;
      }
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }
}
