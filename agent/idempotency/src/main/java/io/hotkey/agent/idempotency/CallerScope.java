package io.hotkey.agent.idempotency;

import io.hotkey.agent.core.Sha256;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Who is asking, as a SHA-256: the values of the scope headers, the authenticated principal and the
 * values of the scope cookies. Two requests share a record only when all of them are equal, so a
 * key sent by two sessions or two users is two records. A request with no principal and no scope
 * cookie hashes exactly as the headers alone did before cookies and principals were added, so
 * records made by earlier versions are still found.
 */
final class CallerScope {
  /** Longest scope cookie value accepted: the size every browser must support for one cookie. */
  static final int MAX_COOKIE_LENGTH = 4096;

  private static final byte PRINCIPAL = 'P';
  private static final byte COOKIE = 'C';

  private final List<String> headers;
  private final List<String> cookies;

  /**
   * The scope of a request that carries none of them, hashed once: most requests on most routes.
   */
  private final String anonymous;

  CallerScope(List<String> headers, List<String> cookies) {
    this.headers = List.copyOf(headers);
    this.cookies = List.copyOf(cookies);
    this.anonymous = hash(name -> List.of(), null, List.of());
  }

  /** A scope cookie the engine refuses to hash: the request is answered 400. */
  static final class InvalidCookie extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidCookie(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * @return the hex SHA-256 of the caller's identity
   * @throws InvalidCookie when a scope cookie is longer than {@link #MAX_COOKIE_LENGTH} or holds a
   *     control character
   */
  String of(RequestHead head) throws InvalidCookie {
    String principal = head.principal();
    List<String> cookieHeaders = cookies.isEmpty() ? List.of() : head.headerValues("Cookie");
    if (principal == null && isEmpty(cookieHeaders) && hasNoScopeHeader(head)) {
      return anonymous;
    }
    return hash(head::headerValues, principal, scopeCookieValues(cookieHeaders));
  }

  private boolean hasNoScopeHeader(RequestHead head) {
    for (String name : headers) {
      if (!isEmpty(head.headerValues(name))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isEmpty(List<String> values) {
    return values == null || values.isEmpty();
  }

  /** For each scope cookie, in the configured order, its values in the request (maybe none). */
  private List<List<String>> scopeCookieValues(List<String> cookieHeaders) throws InvalidCookie {
    if (isEmpty(cookieHeaders)) {
      return List.of();
    }
    List<List<String>> values = new ArrayList<>(cookies.size());
    for (String cookie : cookies) {
      values.add(cookieValues(cookieHeaders, cookie));
    }
    return values;
  }

  private String hash(
      Function<String, List<String>> headerValues,
      String principal,
      List<List<String>> cookieValues) {
    MessageDigest digest = Sha256.digest();
    Sha256.updateLength(digest, headers.size());
    for (String name : headers) {
      List<String> values = headerValues.apply(name);
      Sha256.update(digest, isEmpty(values) ? "" : String.join(", ", values));
    }
    if (principal != null) {
      digest.update(PRINCIPAL);
      Sha256.update(digest, principal);
    }
    for (int i = 0; i < cookieValues.size(); i++) {
      List<String> values = cookieValues.get(i);
      if (!values.isEmpty()) {
        digest.update(COOKIE);
        Sha256.updateLength(digest, i);
        Sha256.updateLength(digest, values.size());
        for (String value : values) {
          Sha256.update(digest, value);
        }
      }
    }
    return Sha256.hex(digest.digest());
  }

  /**
   * Every value of the cookie {@code name} (names are case-sensitive) in the order sent: a browser
   * sends one per path it was set for, and all of them identify the caller.
   */
  static List<String> cookieValues(List<String> cookieHeaders, String name) throws InvalidCookie {
    List<String> values = new ArrayList<>(1);
    for (String header : cookieHeaders) {
      int start = 0;
      int length = header.length();
      while (start < length) {
        int end = header.indexOf(';', start);
        if (end < 0) {
          end = length;
        }
        int nameStart = skipSpaces(header, start, end);
        int equals = header.indexOf('=', nameStart);
        if (equals > 0
            && equals < end
            && equals - nameStart == name.length()
            && header.regionMatches(nameStart, name, 0, name.length())) {
          values.add(checked(name, header.substring(equals + 1, trimEnd(header, equals + 1, end))));
        }
        start = end + 1;
      }
    }
    return values;
  }

  private static String checked(String name, String value) throws InvalidCookie {
    if (value.length() > MAX_COOKIE_LENGTH) {
      throw new InvalidCookie(
          "The "
              + name
              + " cookie is "
              + value.length()
              + " characters long; at most "
              + MAX_COOKIE_LENGTH
              + " are accepted.");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new InvalidCookie("The " + name + " cookie holds a control character.");
      }
    }
    return value;
  }

  private static int skipSpaces(String text, int from, int to) {
    while (from < to && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
      from++;
    }
    return from;
  }

  private static int trimEnd(String text, int from, int to) {
    while (to > from && (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == '\t')) {
      to--;
    }
    return to;
  }

  /** For the startup log: what scopes a record. */
  @Override
  public String toString() {
    return "headers " + headers + ", principal, cookies " + cookies;
  }
}
