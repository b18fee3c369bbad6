package io.hotkey.agent.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RFC 9457 problem details ({@code application/problem+json}) for the answers the engine gives
 * itself, one factory per problem so that every adapter and test sees the same wording.
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

  static HttpAnswer invalidKey(String header, String why) {
    return answer(
        400, "invalid-key", "Invalid " + header, "The " + header + " header is " + why + ".", null);
  }

  static HttpAnswer missingKey(String header) {
    return answer(
        400,
        "missing-key",
        "Missing " + header,
        "This route requires an "
            + header
            + " header; send a unique key (e.g. a UUID) and reuse it when retrying.",
        null);
  }

  static HttpAnswer inProgress(String header, long retryAfterSeconds) {
    return answer(
        409,
        "in-progress",
        "Request in progress",
        "A request with this " + header + " is still being processed; retry after it finishes.",
        Long.toString(retryAfterSeconds));
  }

  static HttpAnswer duplicateInProgress(long retryAfterSeconds) {
    return answer(
        409,
        "in-progress",
        "Request in progress",
        "An identical request is still being processed; retry after it finishes.",
        Long.toString(retryAfterSeconds));
  }

  static HttpAnswer keyReused(String header) {
    return answer(
        422,
        "key-reused",
        "Idempotency key reused",
        "This "
            + header
            + " was already used with a different request (method, path, query or body).",
        null);
  }

  static HttpAnswer invalidCookie(String why) {
    return answer(400, "invalid-cookie", "Invalid cookie", why, null);
  }

  static HttpAnswer tokenMissing(String header, String endpoint) {
    return answer(
        400,
        "token-missing",
        "Missing idempotency token",
        "This route requires a token in the "
            + header
            + " header; get one with "
            + endpoint
            + " and send it with this request and its retries.",
        null);
  }

  static HttpAnswer tokenUnknown(String header, String endpoint, boolean wellFormed) {
    return answer(
        400,
        "token-unknown",
        "Unknown idempotency token",
        "The "
            + header
            + (wellFormed
                ? " is not a token this service issued, or it expired"
                : " is not a token this service issues")
            + "; get a new one with "
            + endpoint
            + ".",
        null);
  }

  static HttpAnswer tokenWrongCaller(String header, String endpoint) {
    return answer(
        400,
        "token-wrong-caller",
        "Idempotency token of another caller",
        "The "
            + header
            + " was issued to another caller (session, user or credentials); get your own with "
            + endpoint
            + ".",
        null);
  }

  static HttpAnswer bodyTooLarge(long maxBody) {
    return answer(
        413,
        "body-too-large",
        "Request body too large",
        "This route checks every request against its token, and takes bodies of at most "
            + maxBody
            + " bytes.",
        null);
  }

  static HttpAnswer storeUnavailable(String header) {
    return answer(
        503,
        "store-unavailable",
        "Idempotency store unavailable",
        "The request was not processed because its "
            + header
            + " could not be checked; retry later.",
        "1");
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
