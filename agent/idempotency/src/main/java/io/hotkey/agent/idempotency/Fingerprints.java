package io.hotkey.agent.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 digests of a request's identity (fingerprint), and the helpers {@link CallerScope} hashes
 * the caller with. Inputs are length-prefixed.
 */
public final class Fingerprints {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** MessageDigest.getInstance looks the algorithm up in the security providers on every call. */
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(Fingerprints::newSha256);

  private Fingerprints() {}

  /** SHA-256 over method, raw path, raw query (absent and empty differ) and body. */
  public static byte[] request(String method, String rawPath, String rawQuery, byte[] body) {
    MessageDigest digest = sha256();
    update(digest, method);
    update(digest, rawPath);
    digest.update((byte) (rawQuery == null ? 0 : 1));
    update(digest, rawQuery == null ? "" : rawQuery);
    updateLength(digest, body.length);
    digest.update(body);
    return digest.digest();
  }

  public static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }

  static void update(MessageDigest digest, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    updateLength(digest, bytes.length);
    digest.update(bytes);
  }

  static void updateLength(MessageDigest digest, int length) {
    digest.update(
        new byte[] {
          (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
        });
  }

  /** This thread's digest, reset: a digest left half-updated by a failure is never reused as is. */
  static MessageDigest sha256() {
    MessageDigest digest = SHA_256.get();
    digest.reset();
    return digest;
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
