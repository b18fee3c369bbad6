package io.hotkey.agent.idempotency;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A request head built by tests. */
final class TestRequests implements RequestHead {
  private final String method;
  private final String path;
  private final String query;
  private final Map<String, List<String>> headers = new LinkedHashMap<>();
  byte[] body = new byte[0];
  private String principal;

  private TestRequests(String method, String path, String query) {
    this.method = method;
    this.path = path;
    this.query = query;
  }

  static TestRequests post(String path) {
    int q = path.indexOf('?');
    return q < 0
        ? new TestRequests("POST", path, null)
        : new TestRequests("POST", path.substring(0, q), path.substring(q + 1));
  }

  static TestRequests of(String method, String path) {
    return new TestRequests(method, path, null);
  }

  TestRequests header(String name, String value) {
    headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
    return this;
  }

  TestRequests principal(String name) {
    principal = name;
    return this;
  }

  TestRequests cookie(String cookieHeader) {
    return header("Cookie", cookieHeader);
  }

  /** The same request, a new object: callers may add to it without changing this one. */
  TestRequests copy() {
    TestRequests copy = new TestRequests(method, path, query);
    headers.forEach((name, values) -> copy.headers.put(name, new ArrayList<>(values)));
    copy.body = body.clone();
    copy.principal = principal;
    return copy;
  }

  TestRequests key(String key) {
    return header("Idempotency-Key", key);
  }

  TestRequests body(String text) {
    body = text.getBytes(StandardCharsets.UTF_8);
    return this;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String rawPath() {
    return path;
  }

  @Override
  public String rawQuery() {
    return query;
  }

  @Override
  public String principal() {
    return principal;
  }

  @Override
  public List<String> headerValues(String name) {
    return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
  }
}
