package io.hotkey.agent.core;

import io.hotkey.config.Redaction;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The agent's own log: one line per event on the application's stderr, prefixed {@code [hotkey]}. A
 * logging framework is deliberately not used: the agent must not touch the application's logging
 * configuration, and it logs before any framework is initialised. Lines carry no timestamp of their
 * own: the platform that collects stderr stamps them, and a fixed prefix is easy to grep.
 */
public final class AgentLog {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Hex digits of a redacted key's hash: 48 bits, so distinct hot keys never share one. */
  private static final int HASH_DIGITS = 12;

  private static volatile Redaction redaction = Redaction.NONE;
  private static volatile int redactPrefix;

  private AgentLog() {}

  /** Set once, before any key is shown: how {@link #printable} renders every key from then on. */
  public static void redact(Redaction mode, int keepPrefixBytes) {
    redactPrefix = keepPrefixBytes;
    redaction = mode;
  }

  public static void info(String message) {
    System.err.println("[hotkey] " + message);
  }

  public static void warn(String message) {
    info("warning: " + message);
  }

  /** A headline and, indented under it, one line per problem of {@code problems}. */
  public static void problems(String headline, String problems) {
    info(
        headline
            + System.lineSeparator()
            + "    "
            + problems.replace("\n", System.lineSeparator() + "    "));
  }

  /**
   * Renders a Redis key the way every log line, metric tag, JMX attribute, endpoint document and
   * {@code status} shows it: printable ASCII, the rest escaped; with {@code
   * hotkey.report.redact=hash}, its first {@code redact-prefix} bytes rendered so, then {@code #}
   * and a hash of the whole key. The one place a key becomes text, so redaction cannot be bypassed.
   */
  public static String printable(byte[] key) {
    if (redaction == Redaction.HASH) {
      int kept = Math.min(redactPrefix, key.length);
      return escaped(key, kept) + "#" + hash(key);
    }
    return escaped(key, key.length);
  }

  private static String hash(byte[] key) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(key);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    char[] out = new char[HASH_DIGITS];
    for (int i = 0; i < HASH_DIGITS; i++) {
      int b = digest[i / 2] & 0xff;
      out[i] = HEX[(i % 2 == 0) ? b >> 4 : b & 0xf];
    }
    return new String(out);
  }

  private static String escaped(byte[] key, int length) {
    StringBuilder text = new StringBuilder(length + 8);
    for (int i = 0; i < length; i++) {
      byte b = key[i];
      int c = b & 0xff;
      if (c == '"' || c == '\\') {
        text.append('\\').append((char) c);
      } else if (c >= 0x20 && c < 0x7f) {
        text.append((char) c);
      } else {
        text.append("\\x")
            .append(Character.forDigit(c >> 4, 16))
            .append(Character.forDigit(c & 0xf, 16));
      }
    }
    return text.toString();
  }
}
