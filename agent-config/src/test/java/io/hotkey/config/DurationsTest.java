package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @Test
  void readsEveryUnit() {
    assertEquals(Duration.ofMillis(250), Durations.parse("250ms"));
    assertEquals(Duration.ofSeconds(5), Durations.parse("5s"));
    assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
    assertEquals(Duration.ofHours(24), Durations.parse("24h"));
    assertEquals(Duration.ofDays(1), Durations.parse("1d"));
  }

  @Test
  void readsZeroWithOrWithoutUnit() {
    assertEquals(Duration.ZERO, Durations.parse("0"));
    assertEquals(Duration.ZERO, Durations.parse("0s"));
  }

  @Test
  void ignoresSurroundingWhitespace() {
    assertEquals(Duration.ofSeconds(5), Durations.parse(" 5s "));
  }

  @ParameterizedTest
  @ValueSource(strings = {"5 seconds", "5 s", "1.5s", "s", "", "5S", "5sec", "abc", "5w"})
  void rejectsGarbage(String text) {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Durations.parse(text));
    assertEquals(text, e.value());
    assertTrue(
        e.problem().startsWith("is not a duration; expected a number followed by ms, s, m, h or d"),
        e.problem());
  }

  @Test
  void rejectsNegative() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Durations.parse("-5s"))
            .problem()
            .startsWith("is negative"));
  }

  @Test
  void rejectsMissingUnitUnlessZero() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Durations.parse("5"))
            .problem()
            .startsWith("has no unit"));
  }

  @Test
  void rejectsOverflow() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Durations.parse("99999999999999999999d"))
            .problem()
            .startsWith("is too large"));
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Durations.parse("9223372036854775807d"))
            .problem()
            .startsWith("is too large"));
  }

  @Test
  void messageQuotesTheValue() {
    assertEquals(
        "\"soon\" is not a duration; " + Durations.EXPECTED,
        assertThrows(InvalidValueException.class, () -> Durations.parse("soon")).getMessage());
  }
}
