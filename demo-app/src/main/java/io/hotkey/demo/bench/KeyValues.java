package io.hotkey.demo.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * The {@code name=value name=value} lines that benchmark children print or serve to their parent.
 */
final class KeyValues {

  private KeyValues() {}

  /** Whitespace-separated {@code name=value} fields; anything else is skipped. */
  static Map<String, String> parse(String text) {
    Map<String, String> fields = new HashMap<>();
    for (String field : text.trim().split("\\s+")) {
      int equals = field.indexOf('=');
      if (equals > 0) {
        fields.put(field.substring(0, equals), field.substring(equals + 1));
      }
    }
    return fields;
  }
}
