package io.hotkey.config;

/** One key whose effective value differs between two configurations, as the log shows it. */
public final class ConfigChange {
  private final ConfigKey key;
  private final String before;
  private final String after;

  ConfigChange(ConfigKey key, String before, String after) {
    this.key = key;
    this.before = before;
    this.after = after;
  }

  public ConfigKey key() {
    return key;
  }

  /** The value before (passwords hidden, {@code ""} shown for an empty value). */
  public String before() {
    return before;
  }

  public String after() {
    return after;
  }

  /** {@code key: before -> after}, the form of the reload log line. */
  @Override
  public String toString() {
    return key.key() + ": " + before + " -> " + after;
  }
}
