package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {

  @ParameterizedTest
  @CsvSource({
    "512B, 512",
    "512, 512",
    "0, 0",
    "256KB, 262144",
    "256kb, 262144",
    "256KiB, 262144",
    "64MB, 67108864",
    "64mb, 67108864",
    "64MiB, 67108864",
    "1GB, 1073741824",
    "1gib, 1073741824",
    "' 2KB ', 2048",
  })
  void readsBytesAndBinaryMultiples(String text, long bytes) {
    assertEquals(bytes, Sizes.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"64 MB", "1.5MB", "MB", "", "64TB", "64M", "lots"})
  void rejectsGarbage(String text) {
    InvalidValueException e = assertThrows(InvalidValueException.class, () -> Sizes.parse(text));
    assertEquals(text, e.value());
    assertEquals("is not a size; " + Sizes.EXPECTED, e.problem());
  }

  @Test
  void rejectsNegative() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Sizes.parse("-1KB"))
            .problem()
            .startsWith("is negative"));
  }

  @Test
  void rejectsOverflow() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Sizes.parse("9000000000GB"))
            .problem()
            .startsWith("is too large"));
  }
}
