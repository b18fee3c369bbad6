package io.hotkey.agent.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class IdempotencyKeysTest {
  @Test
  void acceptsSfStringsAndBareTokens() {
    assertEquals("abc", IdempotencyKeys.parse("\"abc\""));
    assertEquals("abc", IdempotencyKeys.parse("abc"));
    assertEquals("abc", IdempotencyKeys.parse("  \"abc\"\t"));
    assertEquals(
        "8e03978e-40d5-43e8-bc93-6894a57f9324",
        IdempotencyKeys.parse("\"8e03978e-40d5-43e8-bc93-6894a57f9324\""));
    assertEquals("a\"b\\c", IdempotencyKeys.parse("\"a\\\"b\\\\c\""));
    assertEquals("x".repeat(255), IdempotencyKeys.parse("x".repeat(255)));
    assertEquals(
        "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", IdempotencyKeys.parse("~!#$%&'()*+,-./:;<=>?@[]^_`{|}"));
  }

  @Test
  void rejectsEverythingElse() {
    for (String bad :
        new String[] {
          "",
          "   ",
          "\"\"",
          "\"abc",
          "abc\"x",
          "\"a\"b\"",
          "\"a\\x\"",
          "\"a b\"",
          "a b",
          "x".repeat(256),
          "\"" + "x".repeat(256) + "\"",
          "caf\u00e9",
          "a\u0001b",
          "\"a\\\""
        }) {
      assertNull(IdempotencyKeys.parse(bad), bad);
    }
  }

  @Test
  void repeatedHeaderMustAgree() {
    assertNull(IdempotencyKeys.fromHeaderValues(List.of()));
    assertEquals("k", IdempotencyKeys.fromHeaderValues(List.of("k", "\"k\"")));
    assertThrows(
        IllegalArgumentException.class, () -> IdempotencyKeys.fromHeaderValues(List.of("k", "j")));
    assertThrows(
        IllegalArgumentException.class, () -> IdempotencyKeys.fromHeaderValues(List.of("")));
  }
}
