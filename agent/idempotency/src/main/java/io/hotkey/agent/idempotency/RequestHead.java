package io.hotkey.agent.idempotency;

import java.util.List;

/**
 * What the engine needs to know about a request before its body: the seam every server adapter (JDK
 * server, servlet containers) implements over its own request type, so the core never sees one.
 */
public interface RequestHead {
  /** Upper-case method, e.g. {@code POST}. */
  String method();

  /** Decoded path without the query, used for route matching. */
  String path();

  /** The path as sent (still percent-encoded), part of the fingerprint. */
  String rawPath();

  /** The raw query string without {@code ?}, or null when the request has none. */
  String rawQuery();

  /**
   * Every value of the header, in the order received; empty when absent. Names are
   * case-insensitive.
   */
  List<String> headerValues(String name);

  /**
   * The name of the principal the server authenticated for this request, or null when it has none
   * (or the server cannot tell). Part of the caller's scope.
   */
  default String principal() {
    return null;
  }
}
