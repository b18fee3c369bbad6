package io.hotkey.agent.report;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes one JSON document. Strings are escaped per RFC 8259, and {@code <}, {@code >}, {@code &}
 * and the line separators U+2028/U+2029 as well, so that a Redis key (user data) stays inert
 * wherever the text ends up. Non-finite numbers are written as {@code null}.
 */
final class JsonWriter {
  private final StringBuilder out = new StringBuilder(4096);

  /** Per open object or array: whether a member has been written, so the next needs a comma. */
  private final Deque<Boolean> hasMembers = new ArrayDeque<>();

  private boolean afterName;

  JsonWriter beginObject() {
    separate();
    out.append('{');
    hasMembers.push(false);
    return this;
  }

  JsonWriter endObject() {
    hasMembers.pop();
    out.append('}');
    return this;
  }

  JsonWriter beginArray() {
    separate();
    out.append('[');
    hasMembers.push(false);
    return this;
  }

  JsonWriter endArray() {
    hasMembers.pop();
    out.append(']');
    return this;
  }

  JsonWriter name(String name) {
    separate();
    string(name);
    out.append(':');
    afterName = true;
    return this;
  }

  JsonWriter value(String value) {
    separate();
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    return this;
  }

  JsonWriter value(long value) {
    separate();
    out.append(value);
    return this;
  }

  /** Rounded to three decimals: rates and ratios, not exact figures. */
  JsonWriter value(double value) {
    separate();
    if (Double.isFinite(value)) {
      out.append(Math.round(value * 1000) / 1000.0);
    } else {
      out.append("null");
    }
    return this;
  }

  JsonWriter value(boolean value) {
    separate();
    out.append(value);
    return this;
  }

  JsonWriter nullValue() {
    separate();
    out.append("null");
    return this;
  }

  @Override
  public String toString() {
    return out.toString();
  }

  private void separate() {
    if (afterName) {
      afterName = false;
      return;
    }
    if (!hasMembers.isEmpty()) {
      if (hasMembers.peek()) {
        out.append(',');
      } else {
        hasMembers.pop();
        hasMembers.push(true);
      }
    }
  }

  private void string(String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}
