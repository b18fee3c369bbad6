package io.hotkey.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An HTTP route such as {@code POST /orders/**}: the method is an upper-case token or {@code *}; in
 * the path {@code *} stands for exactly one segment and {@code **} for any number, including none.
 * Empty segments are ignored on both sides, so {@code /orders/} and {@code /orders} are the same
 * route.
 */
public final class RoutePattern {
  static final String EXPECTED =
      "expected METHOD /path, where METHOD is an upper-case HTTP method or * "
          + "and a path segment * matches one segment and ** any number, e.g. POST /orders/**";

  private static final String ANY_METHOD = "*";
  private static final String ONE_SEGMENT = "*";
  private static final String ANY_SEGMENTS = "**";
  private static final Pattern METHOD = Pattern.compile("\\*|[A-Z][A-Z0-9_-]*");

  private final String method;
  private final List<String> segments;

  /** The canonical form, made once: engines put it in every record key. */
  private final String text;

  private RoutePattern(String method, List<String> segments) {
    this.method = method;
    this.segments = segments;
    this.text = method + " /" + String.join("/", segments);
  }

  /**
   * Parses {@code METHOD /path}, where the path may hold {@code *} and {@code **} segments.
   *
   * @throws InvalidValueException when the text is not {@code METHOD /path}
   */
  public static RoutePattern parse(String text) {
    String[] parts = text.trim().split("\\s+");
    if (parts.length != 2 || !parts[1].startsWith("/")) {
      throw new InvalidValueException(text, "is not a route pattern; " + EXPECTED);
    }
    if (!METHOD.matcher(parts[0]).matches()) {
      throw new InvalidValueException(text, "has an invalid method " + parts[0] + "; " + EXPECTED);
    }
    List<String> segments = segments(parts[1]);
    for (String segment : segments) {
      if (segment.contains("*") && !segment.equals(ONE_SEGMENT) && !segment.equals(ANY_SEGMENTS)) {
        throw new InvalidValueException(
            text, "mixes * with other characters in segment " + segment + "; " + EXPECTED);
      }
    }
    return new RoutePattern(parts[0], List.copyOf(segments));
  }

  /**
   * Whether a request with this method and path falls under the pattern.
   *
   * @param path the request path without the query string
   */
  public boolean matches(String method, String path) {
    return (this.method.equals(ANY_METHOD) || this.method.equals(method)) && pathMatches(path);
  }

  /**
   * Runs the pattern as an automaton over the request segments, tracking every reachable pattern
   * position at once, so several {@code **} cost O(pattern x path) instead of exponential
   * backtracking. Segments are compared in place: this runs for every request a server with routes
   * receives.
   */
  private boolean pathMatches(String path) {
    int n = segments.size();
    boolean[] reachable = new boolean[n + 1];
    boolean[] next = new boolean[n + 1];
    reachable[0] = true;
    closeOverAnySegments(reachable);
    int length = path.length();
    for (int start = 0; start < length; ) {
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = length;
      }
      if (end > start) {
        Arrays.fill(next, false);
        for (int p = 0; p < n; p++) {
          if (!reachable[p]) {
            continue;
          }
          String expected = segments.get(p);
          if (expected.equals(ANY_SEGMENTS)) {
            next[p] = true;
          } else if (expected.equals(ONE_SEGMENT)
              || (expected.length() == end - start
                  && path.regionMatches(start, expected, 0, expected.length()))) {
            next[p + 1] = true;
          }
        }
        closeOverAnySegments(next);
        boolean[] swap = reachable;
        reachable = next;
        next = swap;
      }
      start = end + 1;
    }
    return reachable[n];
  }

  /** A {@code **} may also match zero segments, so whoever reaches it also reaches what follows. */
  private void closeOverAnySegments(boolean[] states) {
    for (int p = 0; p < segments.size(); p++) {
      if (states[p] && segments.get(p).equals(ANY_SEGMENTS)) {
        states[p + 1] = true;
      }
    }
  }

  private static List<String> segments(String path) {
    List<String> segments = new ArrayList<>();
    for (String segment : path.split("/")) {
      if (!segment.isEmpty()) {
        segments.add(segment);
      }
    }
    return segments;
  }

  /** Whether the pattern names one method and one path: no {@code *} anywhere. */
  public boolean isExact() {
    return !method.equals(ANY_METHOD)
        && !segments.contains(ONE_SEGMENT)
        && !segments.contains(ANY_SEGMENTS);
  }

  public String method() {
    return method;
  }

  /** The path in canonical form: single slashes, no trailing slash, {@code /} for the root. */
  public String path() {
    return "/" + String.join("/", segments);
  }

  /** The canonical form: {@code METHOD /a/b}, single spaces and slashes, no trailing slash. */
  @Override
  public String toString() {
    return text;
  }
}
