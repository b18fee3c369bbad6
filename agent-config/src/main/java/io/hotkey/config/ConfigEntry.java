package io.hotkey.config;

/**
 * One effective setting as it may be shown to a person (the start-up log, the agent's live page and
 * {@code status}): its key, its value with any password hidden, and where the value came from.
 */
public final class ConfigEntry {
  private final String key;
  private final String value;
  private final String source;

  ConfigEntry(String key, String value, String source) {
    this.key = key;
    this.value = value;
    this.source = source;
  }

  /** The property name, e.g. {@code hotkey.detect.threshold}. */
  public String key() {
    return key;
  }

  /** The value as given (trimmed), passwords replaced by {@code ***}. */
  public String value() {
    return value;
  }

  /** Where it came from, e.g. {@code default}, {@code system property}, {@code file /a.props}. */
  public String source() {
    return source;
  }
}
