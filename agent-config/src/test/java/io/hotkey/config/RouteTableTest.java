package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RouteTableTest {

  @Test
  void firstMatchingPatternWins() {
    RouteTable table = RouteTable.parse("POST /orders/special, POST /orders/**, * /orders/*");
    assertEquals("POST /orders/special", table.match("POST", "/orders/special").toString());
    assertEquals("POST /orders/**", table.match("POST", "/orders/1").toString());
    assertEquals("* /orders/*", table.match("PUT", "/orders/1").toString());
  }

  @Test
  void noMatchIsNull() {
    assertNull(RouteTable.parse("POST /orders/**").match("GET", "/orders/1"));
  }

  @Test
  void blankIsEmpty() {
    RouteTable table = RouteTable.parse(" ");
    assertTrue(table.patterns().isEmpty());
    assertNull(table.match("POST", "/orders"));
  }

  @Test
  void toStringListsCanonicalPatterns() {
    assertEquals(
        "POST /orders/**, PUT /payments/*",
        RouteTable.parse("POST /orders/**,PUT  /payments/*/").toString());
  }

  @Test
  void badEntryIsNamed() {
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class, () -> RouteTable.parse("POST /orders/**, PUT payments"));
    assertEquals("PUT payments", e.value());
  }

  @Test
  void emptyEntryIsRejected() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> RouteTable.parse("POST /a,,PUT /b"))
            .problem()
            .startsWith("has an empty entry between commas"));
  }
}
