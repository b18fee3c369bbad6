package io.hotkey.agent.idempotency;

import java.util.List;

/**
 * Parses the {@code Idempotency-Key} header value. The IETF draft makes it an RFC 8941 sf-string
 * ({@code "abc"}); clients in the wild also send a bare token ({@code abc}), which is accepted too.
 *
 * <ul>
 *   <li>Leading and trailing spaces/tabs (HTTP optional white space) are ignored.
 *   <li>Quoted form: RFC 8941 sf-string, characters 0x20-0x7E, {@code \} only before {@code "} or
 *       {@code \}; the decoded key must be 1-255 characters and contain no space (keys are visible
 *       ASCII, the same set as the bare form).
 *   <li>Bare form: 1-255 visible ASCII characters (0x21-0x7E) other than {@code "} (a half-quoted
 *       value is a client bug, not a key).
 *   <li>The header sent several times with different values is invalid (which key would win is
 *       ambiguous); repeated identical values count as one.
 * </ul>
 */
public final class IdempotencyKeys {
  public static final int MAX_LENGTH = 255;

  private IdempotencyKeys() {}

  /** Returns the key, or null when the value is not a valid key. */
  public static String parse(String headerValue) {
    if (headerValue == null) {
      return null;
    }
    String value = trimOws(headerValue);
    if (value.isEmpty()) {
      return null;
    }
    String key = value.charAt(0) == '"' ? unquote(value) : value.indexOf('"') >= 0 ? null : value;
    if (key == null || key.isEmpty() || key.length() > MAX_LENGTH) {
      return null;
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return null;
      }
    }
    return key;
  }

  /**
   * The key a request carries in all of its header values together.
   *
   * @param values every value of the header in the request (empty when absent)
   * @return the key; null when the header is absent
   * @throws IllegalArgumentException when a value is invalid or the values disagree
   */
  public static String fromHeaderValues(List<String> values) {
    if (values == null || values.isEmpty()) {
      return null;
    }
    String key = null;
    for (String value : values) {
      String parsed = parse(value);
      if (parsed == null) {
        throw new IllegalArgumentException(
            "not an sf-string or token of 1-255 visible ASCII characters");
      }
      if (key != null && !key.equals(parsed)) {
        throw new IllegalArgumentException("the header is sent several times with different keys");
      }
      key = parsed;
    }
    return key;
  }

  private static String unquote(String value) {
    if (value.length() < 2 || value.charAt(value.length() - 1) != '"') {
      return null;
    }
    StringBuilder key = new StringBuilder(value.length());
    for (int i = 1; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        if (i + 1 >= value.length() - 1) {
          return null;
        }
        char next = value.charAt(++i);
        if (next != '"' && next != '\\') {
          return null;
        }
        key.append(next);
      } else if (c == '"' || c < 0x20 || c > 0x7e) {
        return null;
      } else {
        key.append(c);
      }
    }
    return key.toString();
  }

  private static String trimOws(String value) {
    int start = 0;
    int end = value.length();
    while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
      end--;
    }
    return value.substring(start, end);
  }
}
