package io.hotkey.config;

/**
 * A raw value for a known key together with where it came from, so errors and describe() can name
 * the source.
 */
final class Setting {
  final ConfigKey key;
  final String value;
  final String origin;

  Setting(ConfigKey key, String value, String origin) {
    this.key = key;
    this.value = value;
    this.origin = origin;
  }

  static Setting byDefault(ConfigKey key) {
    return new Setting(key, key.defaultValue(), "default");
  }

  /**
   * The one-line error for this setting, e.g. {@code hotkey.x: "v" (from file /a) is not ...;
   * expected ...}.
   */
  String error(InvalidValueException e) {
    return key.key() + ": \"" + e.value() + "\" (from " + origin + ") " + e.problem();
  }
}
