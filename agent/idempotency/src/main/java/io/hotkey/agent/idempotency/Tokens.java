package io.hotkey.agent.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Server-issued idempotency tokens: 192 random bits from a {@code DRBG} {@link SecureRandom},
 * written as 32 base64url characters. Anything else in a token route's key header is not a token of
 * ours.
 */
final class Tokens {
  static final int LENGTH = 32;
  private static final int RANDOM_BYTES = 24;

  /**
   * Seeded when the engine is made: the platform's default source reads {@code /dev/urandom} on
   * every draw, which a token issued on an event loop must not wait for; a DRBG reads its entropy
   * once, on its first draw.
   */
  private final SecureRandom random;

  Tokens() {
    try {
      random = SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("DRBG is required by every Java platform since 9", e);
    }
    random.nextBytes(new byte[RANDOM_BYTES]);
  }

  String newToken() {
    byte[] bytes = new byte[RANDOM_BYTES];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Whether {@code text} has the form of a token this agent issues. */
  static boolean isWellFormed(String text) {
    if (text.length() != LENGTH) {
      return false;
    }
    for (int i = 0; i < LENGTH; i++) {
      char c = text.charAt(i);
      boolean base64url =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!base64url) {
        return false;
      }
    }
    return true;
  }

  /** The record a token lives in, issued and then used. */
  static String recordKey(String token) {
    return "token " + token;
  }

  /** The token endpoint's answer: 201, the token in the body and in the key header. */
  static HttpAnswer issued(String token, Duration ttl, String header) {
    String json = "{\"token\":\"" + token + "\",\"expiresInSeconds\":" + ttl.toSeconds() + "}";
    return new HttpAnswer(
        201,
        List.of(
            Map.entry("Content-Type", "application/json"),
            Map.entry("Cache-Control", "no-store"),
            Map.entry(header, token)),
        json.getBytes(StandardCharsets.UTF_8));
  }
}
