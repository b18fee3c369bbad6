package io.hotkey.agent.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RFC 9457 problem details ({@code application/problem+json}) for the answers the engine gives
 * itself.
 */
public final class Problems {
  public static final String CONTENT_TYPE = "application/problem+json";
  private static final String TYPE_PREFIX = "urn:hotkey:problem:idempotency:";

  private Problems() {}

  public static HttpAnswer answer(
      int status, String slug, String title, String detail, String retryAfterSeconds) {
    String json =
        "{\"type\":\""
            + TYPE_PREFIX
            + slug
            + "\",\"title\":\""
            + escape(title)
            + "\",\"status\":"
            + status
            + ",\"detail\":\""
            + escape(detail)
            + "\"}";
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    headers.add(Map.entry("Content-Type", CONTENT_TYPE));
    if (retryAfterSeconds != null) {
      headers.add(Map.entry("Retry-After", retryAfterSeconds));
    }
    return new HttpAnswer(status, headers, json.getBytes(StandardCharsets.UTF_8));
  }

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
