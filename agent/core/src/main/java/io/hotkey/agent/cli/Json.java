package io.hotkey.agent.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the agent's report (RFC 8259 JSON) into maps, lists, strings, doubles, booleans and nulls.
 * The command line reads the report as the page does, as a document whose members it looks up by
 * name: an agent of another version adds or lacks members without breaking it.
 */
final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    Json json = new Json(text);
    Object value = json.value();
    json.skipSpace();
    if (json.at != text.length()) {
      throw json.error("text after the document");
    }
    return value;
  }

  private Object value() {
    skipSpace();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", true);
      case 'f':
        return literal("false", false);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> members = new LinkedHashMap<>();
    at++;
    skipSpace();
    if (take('}')) {
      return members;
    }
    do {
      skipSpace();
      String name = string();
      skipSpace();
      expect(':');
      members.put(name, value());
      skipSpace();
    } while (take(','));
    expect('}');
    return members;
  }

  private List<Object> array() {
    List<Object> items = new ArrayList<>();
    at++;
    skipSpace();
    if (take(']')) {
      return items;
    }
    do {
      items.add(value());
      skipSpace();
    } while (take(','));
    expect(']');
    return items;
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char escaped = text.charAt(at++);
      switch (escaped) {
        case 'n':
          out.append('\n');
          break;
        case 'r':
          out.append('\r');
          break;
        case 't':
          out.append('\t');
          break;
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
          break;
        default:
          out.append(escaped);
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    try {
      return Double.valueOf(text.substring(start, at));
    } catch (NumberFormatException e) {
      throw error("not a value");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("not a value");
    }
    at += word.length();
    return value;
  }

  private void skipSpace() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  /** Consumes {@code c} if it is next. */
  private boolean take(char c) {
    if (at < text.length() && text.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!take(c)) {
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String problem) {
    return new IllegalArgumentException("malformed report at character " + at + ": " + problem);
  }
}
