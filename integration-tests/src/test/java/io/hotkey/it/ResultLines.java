package io.hotkey.it;

import io.hotkey.it.app.results.ResultFamily;
import io.hotkey.it.app.results.ResultName;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The {@code RESULT} lines among what a child printed (its stdout, or an answer a running child
 * gives over HTTP), read by the {@link ResultName} the child wrote them with.
 */
final class ResultLines {
  /** By name, the text of each RESULT line's value; {@code null} for a line without one. */
  private final Map<String, String> values = new LinkedHashMap<>();

  /** Where the lines came from, for a failure's message. */
  private final Supplier<String> source;

  ResultLines(List<String> lines, Supplier<String> source) {
    this.source = source;
    for (String line : lines) {
      if (line.startsWith("RESULT ")) {
        int eq = line.indexOf('=');
        if (eq < 0) {
          values.put(line.substring(7), null);
        } else {
          values.put(line.substring(7, eq), unescape(line.substring(eq + 1)));
        }
      }
    }
  }

  private static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        b.append(n == 'n' ? '\n' : n == 'r' ? '\r' : n);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** How many results were reported. */
  int size() {
    return values.size();
  }

  /**
   * The value reported as {@code name}; {@code null} only for a {@link ResultName#nullable()
   * nullable} one reported without a value.
   *
   * @throws AssertionError naming the result and the source, when it was not reported, was reported
   *     without a value it must have, or with a value of another type
   */
  <T> T get(ResultName<T> name) {
    if (!values.containsKey(name.name())) {
      throw new AssertionError("no RESULT " + name + " from " + source.get());
    }
    String text = values.get(name.name());
    if (text == null) {
      if (name.nullable()) {
        return null;
      }
      throw new AssertionError("RESULT " + name + " without a value from " + source.get());
    }
    try {
      return name.parse(text);
    } catch (IllegalArgumentException e) {
      throw new AssertionError(
          "RESULT " + name + "=" + text + " from " + source.get() + ": " + e.getMessage(), e);
    }
  }

  /** Every result of {@code family} reported, by member (sorted). */
  <T> Map<String, T> get(ResultFamily<T> family) {
    Map<String, T> found = new TreeMap<>();
    for (String name : values.keySet()) {
      family.memberOf(name).ifPresent(member -> found.put(member, get(family.of(member))));
    }
    return found;
  }
}
