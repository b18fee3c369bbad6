package io.hotkey.it.app.results;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The name of one {@code RESULT} line a scenario app reports and its test reads, and how its value
 * is written on the line and read back. App and test share these constants (the holders in this
 * package), so a renamed or misspelt result fails to compile instead of reading as missing.
 *
 * <p>A value is never {@code null}, except for a {@link #reply}: a Redis reply that may be nil.
 */
public final class ResultName<T> {
  private final String name;
  private final Function<T, String> format;
  private final Function<String, T> parse;
  private final boolean nullable;

  private ResultName(
      String name, Function<T, String> format, Function<String, T> parse, boolean nullable) {
    if (name.isEmpty() || name.contains("=") || name.contains("\n") || name.contains("\r")) {
      throw new IllegalArgumentException("not a result name: '" + name + "'");
    }
    this.name = name;
    this.format = format;
    this.parse = parse;
    this.nullable = nullable;
  }

  /** A whole number: a count, a duration in ms or µs, a seed. */
  public static ResultName<Long> number(String name) {
    return new ResultName<>(name, String::valueOf, Long::valueOf, false);
  }

  /** Yes or no. */
  public static ResultName<Boolean> flag(String name) {
    return new ResultName<>(name, String::valueOf, ResultName::parseFlag, false);
  }

  /** One text: an outcome, a version, a class name, a canonical form of a value. */
  public static ResultName<String> text(String name) {
    return new ResultName<>(name, s -> s, s -> s, false);
  }

  /** What Redis answered a read, {@code null} when it answered nil. */
  public static ResultName<String> reply(String name) {
    return new ResultName<>(name, s -> s, s -> s, true);
  }

  /** Several texts (examples, samples, tracked servers); each survives whatever it holds. */
  public static ResultName<List<String>> texts(String name) {
    return new ResultName<>(name, ResultName::formatTexts, ResultName::parseTexts, false);
  }

  /** What the line carries after {@code RESULT }, and before {@code =}. */
  public String name() {
    return name;
  }

  /** Whether the app may report {@code null} for it. */
  public boolean nullable() {
    return nullable;
  }

  /** The text of a value, before the line's own escaping. */
  public String format(T value) {
    return format.apply(value);
  }

  /**
   * The value {@link #format} wrote as {@code text}.
   *
   * @throws IllegalArgumentException when {@code text} is not one
   */
  public T parse(String text) {
    return parse.apply(text);
  }

  @Override
  public String toString() {
    return name;
  }

  private static Boolean parseFlag(String text) {
    return switch (text) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("not true or false: " + text);
    };
  }

  /** {@code ["a", "b \"c\""]}: each text quoted, {@code "} and {@code \} escaped. */
  private static String formatTexts(List<String> texts) {
    StringBuilder b = new StringBuilder("[");
    for (String t : texts) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append('"').append(t.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    }
    return b.append(']').toString();
  }

  private static List<String> parseTexts(String text) {
    if (!text.startsWith("[") || !text.endsWith("]")) {
      throw new IllegalArgumentException("not a list of texts: " + text);
    }
    List<String> texts = new ArrayList<>();
    int i = 1;
    int end = text.length() - 1;
    while (i < end) {
      if (!texts.isEmpty()) {
        if (!text.startsWith(", ", i)) {
          throw new IllegalArgumentException("no ', ' at " + i + " of " + text);
        }
        i += 2;
      }
      if (i >= end || text.charAt(i) != '"') {
        throw new IllegalArgumentException("no '\"' at " + i + " of " + text);
      }
      StringBuilder t = new StringBuilder();
      i++;
      while (i < end && text.charAt(i) != '"') {
        if (text.charAt(i) == '\\' && i + 1 < end) {
          i++;
        }
        t.append(text.charAt(i++));
      }
      if (i >= end) {
        throw new IllegalArgumentException("unterminated text in " + text);
      }
      texts.add(t.toString());
      i++;
    }
    return texts;
  }
}
