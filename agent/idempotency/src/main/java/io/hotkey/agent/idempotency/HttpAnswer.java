package io.hotkey.agent.idempotency;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** A complete response: status, headers (in order, names as given) and body. Immutable. */
public final class HttpAnswer {
  private final int status;
  private final List<Map.Entry<String, String>> headers;
  private final byte[] body;

  public HttpAnswer(int status, List<Map.Entry<String, String>> headers, byte[] body) {
    this.status = status;
    this.headers = Collections.unmodifiableList(new ArrayList<>(headers));
    this.body = body.clone();
  }

  public int status() {
    return status;
  }

  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  /** A fresh copy: callers may not share the stored array. */
  public byte[] body() {
    return body.clone();
  }

  public int bodyLength() {
    return body.length;
  }

  /** The first value of a header, case-insensitively, or null. */
  public String header(String name) {
    for (Map.Entry<String, String> header : headers) {
      if (header.getKey().equalsIgnoreCase(name)) {
        return header.getValue();
      }
    }
    return null;
  }

  /** The same response with one more header appended. */
  public HttpAnswer withHeader(String name, String value) {
    List<Map.Entry<String, String>> more = new ArrayList<>(headers);
    more.add(Map.entry(name, value));
    return new HttpAnswer(status, more, body);
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof HttpAnswer)) {
      return false;
    }
    HttpAnswer that = (HttpAnswer) other;
    return status == that.status && headers.equals(that.headers) && Arrays.equals(body, that.body);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "HttpAnswer{" + status + ", " + headers + ", " + body.length + " bytes}";
  }
}
