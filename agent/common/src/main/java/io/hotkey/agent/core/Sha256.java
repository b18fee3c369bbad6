package io.hotkey.agent.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 as the agent uses it: one digest per thread, inputs framed by their length, hex text. */
public final class Sha256 {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** MessageDigest.getInstance looks the algorithm up in the security providers on every call. */
  private static final ThreadLocal<MessageDigest> DIGESTS =
      ThreadLocal.withInitial(Sha256::newDigest);

  private Sha256() {}

  /** This thread's digest, reset: a digest left half-updated by a failure is never reused as is. */
  public static MessageDigest digest() {
    MessageDigest digest = DIGESTS.get();
    digest.reset();
    return digest;
  }

  /** Adds {@code text} as UTF-8 after its length, so that two fields never run into each other. */
  public static void update(MessageDigest digest, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    updateLength(digest, bytes.length);
    digest.update(bytes);
  }

  public static void updateLength(MessageDigest digest, int length) {
    digest.update(
        new byte[] {
          (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
        });
  }

  /** Lower-case hex, two digits a byte. */
  public static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
