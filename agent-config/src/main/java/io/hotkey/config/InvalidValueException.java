package io.hotkey.config;

/**
 * A single value that does not have the expected form. It keeps the value and the problem apart so
 * that the configuration loader can put the key and the source in between.
 */
public final class InvalidValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String value;
  private final String problem;

  InvalidValueException(String value, String problem) {
    super('"' + value + "\" " + problem);
    this.value = value;
    this.problem = problem;
  }

  /** The offending text; for a list, the offending entry. */
  public String value() {
    return value;
  }

  /** What is wrong and the expected form, e.g. {@code is not a duration; expected ...}. */
  public String problem() {
    return problem;
  }
}
