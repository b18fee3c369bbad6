package io.hotkey.config;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** An ordered list of route patterns; the first one that matches a request decides. */
public final class RouteTable {
  private final List<RoutePattern> patterns;

  public RouteTable(List<RoutePattern> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  /** Parses comma-separated route patterns; blank text is an empty table. */
  public static RouteTable parse(String text) {
    List<RoutePattern> patterns = new ArrayList<>();
    for (String entry : CommaList.split(text, RoutePattern.EXPECTED)) {
      patterns.add(RoutePattern.parse(entry));
    }
    return new RouteTable(patterns);
  }

  /** Returns the first pattern matching the request, or null when none does. */
  public RoutePattern match(String method, String path) {
    for (RoutePattern pattern : patterns) {
      if (pattern.matches(method, path)) {
        return pattern;
      }
    }
    return null;
  }

  public List<RoutePattern> patterns() {
    return patterns;
  }

  /** The canonical patterns, comma-separated. */
  @Override
  public String toString() {
    return patterns.stream().map(RoutePattern::toString).collect(Collectors.joining(", "));
  }
}
