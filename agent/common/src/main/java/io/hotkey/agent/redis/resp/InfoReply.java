package io.hotkey.agent.redis.resp;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** The fields of an {@code INFO} reply: its {@code name:value} lines, section headers skipped. */
public final class InfoReply {
  private InfoReply() {}

  /**
   * The fields of {@code reply}, a bulk string (RESP2) or a verbatim string (RESP3, decoded to a
   * {@code String}); none for anything else, such as an error.
   */
  public static Map<String, String> fields(Object reply) {
    String text =
        reply instanceof byte[]
            ? new String((byte[]) reply, StandardCharsets.UTF_8)
            : reply instanceof String ? (String) reply : "";
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }
}
