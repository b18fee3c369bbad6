package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.config.Redaction;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a key is rendered wherever the agent shows it, plain and redacted. */
class AgentLogTest {
  private static byte[] key(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @AfterEach
  void plainAgain() {
    AgentLog.redact(Redaction.NONE, 0);
  }

  @Test
  void plainKeysEscapeQuotesBackslashesAndUnprintableBytes() {
    assertEquals("a\\\"b\\\\c\\x0a\\xc3\\xa9", AgentLog.printable(key("a\"b\\c\né")));
  }

  @Test
  void hashedKeysKeepTheirPrefixAndAStableHashOfTheWholeKey() {
    AgentLog.redact(Redaction.HASH, 5);
    String shown = AgentLog.printable(key("user:4711"));
    assertTrue(shown.matches("user:#[0-9a-f]{12}"), shown);
    assertEquals(shown, AgentLog.printable(key("user:4711")), "stable");
    assertNotEquals(shown, AgentLog.printable(key("user:4712")));
    // SHA-256("user:4711"), first 48 bits
    assertEquals("user:#" + sha256Prefix("user:4711"), shown);
    assertEquals("ab#" + sha256Prefix("ab"), AgentLog.printable(key("ab")), "shorter than prefix");
    AgentLog.redact(Redaction.HASH, 0);
    assertEquals("#" + sha256Prefix("user:4711"), AgentLog.printable(key("user:4711")));
  }

  private static String sha256Prefix(String text) {
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (int i = 0; i < 6; i++) {
        hex.append(String.format("%02x", digest[i] & 0xff));
      }
      return hex.toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
