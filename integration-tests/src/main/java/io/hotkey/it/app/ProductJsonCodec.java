package io.hotkey.it.app;

import io.lettuce.core.codec.RedisCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application's own Lettuce codec: String keys, {@link Product} values stored as JSON (a
 * hand-rolled encoder and parser, no library). {@code RedisCodec} has the same four methods on
 * Lettuce 5, 6 and 7. Counts its value decodes, so a test can tell that every result object was
 * built by this codec.
 */
public final class ProductJsonCodec implements RedisCodec<String, ProductJsonCodec.Product> {
  final AtomicLong decodes = new AtomicLong();

  /** A mutable value object: a caller that changes its result must not change anyone else's. */
  public static final class Product {
    String id;
    String name;
    long priceCents;
    List<String> tags;

    Product(String id, String name, long priceCents, List<String> tags) {
      this.id = id;
      this.name = name;
      this.priceCents = priceCents;
      this.tags = new ArrayList<>(tags);
    }

    /** What a careless caller might do to the object it got back. */
    void scribble() {
      name = "changed by a caller";
      priceCents = -1;
      tags.add("scribbled");
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Product p)) {
        return false;
      }

      return priceCents == p.priceCents
          && Objects.equals(id, p.id)
          && Objects.equals(name, p.name)
          && Objects.equals(tags, p.tags);
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, name, priceCents, tags);
    }

    @Override
    public String toString() {
      return toJson(this);
    }
  }

  @Override
  public String decodeKey(ByteBuffer bytes) {
    return StandardCharsets.UTF_8.decode(bytes).toString();
  }

  @Override
  public Product decodeValue(ByteBuffer bytes) {
    decodes.incrementAndGet();
    return fromJson(StandardCharsets.UTF_8.decode(bytes).toString());
  }

  @Override
  public ByteBuffer encodeKey(String key) {
    return ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public ByteBuffer encodeValue(Product value) {
    return ByteBuffer.wrap(toJson(value).getBytes(StandardCharsets.UTF_8));
  }

  // ---- JSON ----

  static String toJson(Product p) {
    StringBuilder b = new StringBuilder("{\"id\":");
    string(b, p.id);
    b.append(",\"name\":");
    string(b, p.name);
    b.append(",\"priceCents\":").append(p.priceCents).append(",\"tags\":[");
    for (int i = 0; i < p.tags.size(); i++) {
      b.append(i == 0 ? "" : ",");
      string(b, p.tags.get(i));
    }
    return b.append("]}").toString();
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    b.append('"');
  }

  @SuppressWarnings("unchecked")
  static Product fromJson(String json) {
    Parser p = new Parser(json);
    Object value = p.value();
    p.skipSpace();
    if (p.pos != json.length() || !(value instanceof Map)) {
      throw new IllegalArgumentException("not a JSON object: " + json);
    }
    Map<String, Object> m = (Map<String, Object>) value;
    return new Product(
        (String) m.get("id"),
        (String) m.get("name"),
        (Long) m.get("priceCents"),
        (List<String>) m.get("tags"));
  }

  /**
   * Objects, arrays, strings, integers, true/false/null: what {@link #toJson} writes and a little
   * more.
   */
  private static final class Parser {
    final String s;
    int pos;

    Parser(String s) {
      this.s = s;
    }

    void skipSpace() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    void expect(char c) {
      skipSpace();
      if (pos >= s.length() || s.charAt(pos) != c) {
        throw new IllegalArgumentException("expected '" + c + "' at " + pos + " in " + s);
      }
      pos++;
    }

    boolean next(char c) {
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    Object value() {
      skipSpace();
      char c = pos < s.length() ? s.charAt(pos) : '\0';
      if (c == '{') {
        pos++;
        Map<String, Object> m = new LinkedHashMap<>();
        if (!next('}')) {
          do {
            skipSpace();
            String k = string();
            expect(':');
            m.put(k, value());
          } while (next(','));
          expect('}');
        }
        return m;
      }
      if (c == '[') {
        pos++;
        List<Object> l = new ArrayList<>();
        if (!next(']')) {
          do {
            l.add(value());
          } while (next(','));
          expect(']');
        }
        return l;
      }
      if (c == '"') {
        return string();
      }
      for (String word : new String[] {"true", "false", "null"}) {
        if (s.startsWith(word, pos)) {
          pos += word.length();
          return word.equals("null") ? null : Boolean.valueOf(word);
        }
      }
      int start = pos;
      while (pos < s.length() && (s.charAt(pos) == '-' || Character.isDigit(s.charAt(pos)))) {
        pos++;
      }
      if (start == pos) {
        throw new IllegalArgumentException("unexpected '" + c + "' at " + pos + " in " + s);
      }
      return Long.parseLong(s.substring(start, pos));
    }

    String string() {
      expect('"');
      StringBuilder b = new StringBuilder();
      while (true) {
        if (pos >= s.length()) {
          throw new IllegalArgumentException("unterminated string in " + s);
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return b.toString();
        }
        if (c != '\\') {
          b.append(c);
          continue;
        }
        char e = s.charAt(pos++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 't' -> b.append('\t');
          case 'r' -> b.append('\r');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> b.append(e);
            // '"', '\\', '/'
        }
      }
    }
  }
}
