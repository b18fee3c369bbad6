package io.hotkey.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations written as {@code 250ms}, {@code 5s}, {@code 2m}, {@code 24h}, {@code 1d} or
 * {@code 0}.
 */
public final class Durations {
  static final String EXPECTED = "expected a number followed by ms, s, m, h or d, e.g. 250ms or 5s";

  private static final Pattern FORM = Pattern.compile("(-?)(\\d+)(ms|s|m|h|d)?");

  private Durations() {}

  /**
   * Parses a duration such as {@code 250ms}, {@code 5s} or {@code 1d}.
   *
   * @throws InvalidValueException for a negative value, a missing unit (except 0) or anything else
   */
  public static Duration parse(String text) {
    Matcher m = FORM.matcher(text.trim());
    if (!m.matches()) {
      throw new InvalidValueException(text, "is not a duration; " + EXPECTED);
    }
    if (!m.group(1).isEmpty()) {
      throw new InvalidValueException(text, "is negative; " + EXPECTED);
    }
    String unit = m.group(3);
    try {
      long amount = Long.parseLong(m.group(2));
      if (unit == null) {
        // a bare number is ambiguous (seconds? millis?), except zero which means the same in every
        // unit
        if (amount != 0) {
          throw new InvalidValueException(text, "has no unit; " + EXPECTED);
        }
        return Duration.ZERO;
      }
      return Duration.of(amount, chronoUnit(unit));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new InvalidValueException(text, "is too large; " + EXPECTED);
    }
  }

  private static ChronoUnit chronoUnit(String unit) {
    switch (unit) {
      case "ms":
        return ChronoUnit.MILLIS;
      case "s":
        return ChronoUnit.SECONDS;
      case "m":
        return ChronoUnit.MINUTES;
      case "h":
        return ChronoUnit.HOURS;
      default:
        return ChronoUnit.DAYS;
    }
  }
}
