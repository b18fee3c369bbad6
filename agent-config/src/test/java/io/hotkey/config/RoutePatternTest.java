package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RoutePatternTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "POST /orders|POST|/orders|true",
        "POST /orders|POST|/orders/|true",
        "POST /orders|GET|/orders|false",
        "POST /orders|POST|/orders/1|false",
        "PUT /payments/*|PUT|/payments/9|true",
        "PUT /payments/*|PUT|/payments|false",
        "PUT /payments/*|PUT|/payments/9/refund|false",
        "POST /orders/**|POST|/orders|true",
        "POST /orders/**|POST|/orders/1|true",
        "POST /orders/**|POST|/orders/1/items/2|true",
        "POST /orders/**|POST|/order|false",
        "* /orders/*/items|DELETE|/orders/5/items|true",
        "* /orders/*/items|DELETE|/orders/5/lines|false",
        "POST /**/confirm|POST|/confirm|true",
        "POST /**/confirm|POST|/a/b/confirm|true",
        "POST /**/confirm|POST|/a/b/confirm/x|false",
        "POST /a/**/b/**/c|POST|/a/b/c|true",
        "POST /a/**/b/**/c|POST|/a/x/b/y/z/c|true",
        "POST /a/**/b/**/c|POST|/a/x/y/c|false",
        "GET /|GET|/|true",
        "GET /|GET|/x|false",
        "GET /**|GET|/|true",
      })
  void matches(String pattern, String method, String path, boolean expected) {
    assertEquals(
        expected,
        RoutePattern.parse(pattern).matches(method, path),
        pattern + " vs " + method + " " + path);
  }

  @Test
  void manyDoubleStarsStayFast() {
    RoutePattern pattern = RoutePattern.parse("POST " + "/**/a".repeat(50) + "/b");
    String path = "/a".repeat(5_000);
    assertTimeoutPreemptively(
        Duration.ofSeconds(2), () -> assertEquals(false, pattern.matches("POST", path)));
  }

  @Test
  void toStringIsCanonical() {
    assertEquals("POST /orders/**", RoutePattern.parse("  POST   /orders//**/  ").toString());
    assertEquals("* /", RoutePattern.parse("* /").toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/orders", "POST", "POST orders", "POST /a /b", ""})
  void rejectsWrongShape(String text) {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> RoutePattern.parse(text));
    assertEquals(text, e.value());
    assertEquals("is not a route pattern; " + RoutePattern.EXPECTED, e.problem());
  }

  @ParameterizedTest
  @ValueSource(strings = {"post /orders", "P@ST /orders", "-POST /x"})
  void rejectsMethodsThatAreNotUpperCaseTokens(String text) {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> RoutePattern.parse(text))
            .problem()
            .startsWith("has an invalid method"));
  }

  @Test
  void rejectsStarsInsideASegment() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> RoutePattern.parse("GET /orders/*.json"))
            .problem()
            .startsWith("mixes * with other characters in segment *.json"));
  }

  @Test
  void exactPatternsHaveNoWildcardAndExposeTheirMethodAndPath() {
    RoutePattern exact = RoutePattern.parse("POST /idempotency-tokens/");
    assertTrue(exact.isExact());
    assertEquals("POST", exact.method());
    assertEquals("/idempotency-tokens", exact.path());
    assertEquals("/", RoutePattern.parse("GET /").path());
    for (String wild : new String[] {"* /tokens", "POST /tokens/*", "POST /**"}) {
      assertFalse(RoutePattern.parse(wild).isExact(), wild);
    }
  }
}
