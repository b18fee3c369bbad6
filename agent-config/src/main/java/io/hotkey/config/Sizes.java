package io.hotkey.config;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses byte sizes such as {@code 512B}, {@code 256KB}, {@code 64MB}, {@code 1GB} or a plain byte
 * count.
 */
public final class Sizes {
  static final String EXPECTED =
      "expected a number of bytes, optionally followed by B, KB, MB or GB (1KB = 1024 bytes), e.g. 256KB or 64MB";

  private static final Pattern FORM = Pattern.compile("(-?)(\\d+)([a-z]*)");

  // KB means 1024 here, as in Redis' maxmemory and the JVM's -Xmx; the KiB spellings say the same
  // explicitly
  private static final Map<String, Long> UNITS =
      Map.of(
          "", 1L, "b", 1L, "kb", 1L << 10, "kib", 1L << 10, "mb", 1L << 20, "mib", 1L << 20, "gb",
          1L << 30, "gib", 1L << 30);

  private Sizes() {}

  /**
   * Returns the size in bytes.
   *
   * @throws InvalidValueException for a negative value, unknown unit or garbage
   */
  public static long parse(String text) {
    Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
    Long multiplier = m.matches() ? UNITS.get(m.group(3)) : null;
    if (multiplier == null) {
      throw new InvalidValueException(text, "is not a size; " + EXPECTED);
    }
    if (!m.group(1).isEmpty()) {
      throw new InvalidValueException(text, "is negative; " + EXPECTED);
    }
    try {
      return Math.multiplyExact(Long.parseLong(m.group(2)), multiplier);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new InvalidValueException(text, "is too large; " + EXPECTED);
    }
  }
}
