package io.hotkey.config;

import java.util.ArrayList;
import java.util.List;

/** Splits the comma-separated values that several keys share. */
final class CommaList {
  private CommaList() {}

  /**
   * Blank text is an empty list; an empty entry between commas is rejected because it is almost
   * always a typo that would otherwise silently match nothing or everything.
   */
  static List<String> split(String text, String expected) {
    List<String> entries = new ArrayList<>();
    if (text.isBlank()) {
      return entries;
    }
    for (String entry : text.split(",", -1)) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        throw new InvalidValueException(text, "has an empty entry between commas; " + expected);
      }
      entries.add(trimmed);
    }
    return entries;
  }
}
