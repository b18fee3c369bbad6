package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.Sha256;
import java.security.MessageDigest;

/** The SHA-256 digest of a request's identity (its fingerprint). Inputs are length-prefixed. */
public final class Fingerprints {
  private Fingerprints() {}

  /** SHA-256 over method, raw path, raw query (absent and empty differ) and body. */
  public static byte[] request(String method, String rawPath, String rawQuery, byte[] body) {
    MessageDigest digest = Sha256.digest();
    Sha256.update(digest, method);
    Sha256.update(digest, rawPath);
    digest.update((byte) (rawQuery == null ? 0 : 1));
    Sha256.update(digest, rawQuery == null ? "" : rawQuery);
    Sha256.updateLength(digest, body.length);
    digest.update(body);
    return digest.digest();
  }
}
