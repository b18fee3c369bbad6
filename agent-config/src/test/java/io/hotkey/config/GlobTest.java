package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GlobTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "*|''|true",
        "*|anything|true",
        "user:*|user:42|true",
        "user:*|user:|true",
        "user:*|item:42|false",
        "*:profile|user:1:profile|true",
        "*:profile|user:1:profiles|false",
        "a*b*c|aXXbYYc|true",
        "a*b*c|aXXbYY|false",
        "h?llo|hello|true",
        "h?llo|hllo|false",
        "h[ae]llo|hallo|true",
        "h[ae]llo|hillo|false",
        "h[^e]llo|hallo|true",
        "h[^e]llo|hello|false",
        "h[a-c]llo|hbllo|true",
        "h[a-c]llo|hdllo|false",
        "h[c-a]llo|hbllo|true",
        "h[a-]llo|h-llo|true",
        "h[\\]]llo|h]llo|true",
        "h\\*llo|h*llo|true",
        "h\\*llo|hello|false",
        "h\\?|h?|true",
        "h\\?|hx|false",
        "exact|exact|true",
        "exact|exactly|false",
        "**x|abcx|true",
      })
  void matchesLikeRedis(String pattern, String text, boolean expected) {
    assertEquals(expected, Glob.parse(pattern).matches(text), pattern + " vs " + text);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a*a*a*a*a*b", "*a*a*a*a*a*a*a*a*a*a*a*a*b", "a?a?a?a?*b", "*[a]*[a]*[a]*[a]*c"})
  void pathologicalPatternsFinishFast(String pattern) {
    String text = "a".repeat(200_000);
    Glob glob = Glob.parse(pattern);
    assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertFalse(glob.matches(text)));
  }

  @Test
  void unterminatedSetIsRejected() {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Glob.parse("user:[ab"));
    assertEquals("user:[ab", e.value());
    assertTrue(
        e.problem().startsWith("has a [ without a closing ]; expected a Redis glob"), e.problem());
  }

  @Test
  void emptySetIsRejected() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Glob.parse("a[]b"))
            .problem()
            .startsWith("has an empty [] set"));
  }

  @Test
  void trailingBackslashIsRejected() {
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Glob.parse("abc\\"))
            .problem()
            .startsWith("ends with a lone backslash"));
    assertTrue(
        assertThrows(InvalidValueException.class, () -> Glob.parse("[a\\"))
            .problem()
            .startsWith("ends with a lone backslash"));
  }

  @Test
  void toStringIsThePattern() {
    assertEquals("user:[a-z]*", Glob.parse("user:[a-z]*").toString());
  }

  @Test
  void listIsCommaSeparatedAndTrimmed() {
    List<Glob> globs = Glob.parseList(" user:* , item:?? ");
    assertEquals(
        List.of("user:*", "item:??"),
        globs.stream().map(Glob::toString).collect(Collectors.toList()));
    assertEquals(List.of(), Glob.parseList(""));
    assertEquals(List.of(), Glob.parseList("  "));
  }

  @Test
  void listRejectsEmptyEntries() {
    InvalidValueException e =
        assertThrows(InvalidValueException.class, () -> Glob.parseList("user:*,,item:*"));
    assertEquals("user:*,,item:*", e.value());
    assertTrue(e.problem().startsWith("has an empty entry between commas"));
  }
}
