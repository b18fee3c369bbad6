package io.hotkey.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The typed readers behind {@link ConfigKey}: each turns raw text into a value or an {@link
 * InvalidValueException}.
 */
final class ValueParsers {
  static final String REDIS_URI_EXPECTED =
      "expected redis://[user:password@]host:port[/db][?protocol=2|3] (rediss:// for TLS),"
          + " e.g. redis://localhost:6379/0";

  private static final String HEADER_EXPECTED =
      "expected an HTTP header name, e.g. Idempotency-Key";
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern DATABASE = Pattern.compile("/?|/\\d+");
  private static final Pattern HOST_NAME =
      Pattern.compile(
          "[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
  private static final Pattern PROTOCOL = Pattern.compile("protocol=[23]");
  private static final Pattern CLASS_NAME =
      Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+");

  private ValueParsers() {}

  static Boolean bool(String text) {
    String t = text.trim();
    // stricter than Boolean.parseBoolean, which reads every typo as false
    if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
      return Boolean.valueOf(t);
    }
    throw new InvalidValueException(text, "is not a boolean; expected true or false");
  }

  /** A share of a whole such as {@code 80%} (1% to 99%), or {@code off}. */
  static OptionalDouble percentOrOff(String text) {
    return percentOrOff(
        text, 99, "is not a share of the TTL; expected e.g. 80% (1% to 99%) or off");
  }

  /** A share of a key's reads such as {@code 50%} (1% to 1000%), or {@code off}. */
  static OptionalDouble shareOfReadsOrOff(String text) {
    return percentOrOff(
        text, 1000, "is not a share of the reads; expected e.g. 50% (1% to 1000%) or off");
  }

  private static OptionalDouble percentOrOff(String text, double maxPercent, String expected) {
    String t = text.trim();
    if (t.equalsIgnoreCase("off")) {
      return OptionalDouble.empty();
    }
    if (t.endsWith("%")) {
      try {
        double percent = Double.parseDouble(t.substring(0, t.length() - 1).trim());
        if (percent >= 1 && percent <= maxPercent) {
          return OptionalDouble.of(percent / 100);
        }
      } catch (NumberFormatException e) {
        // reported below with the expected form
      }
    }
    throw new InvalidValueException(text, expected);
  }

  /** A positive duration, or {@code off}. */
  static Optional<Duration> durationOrOff(String text) {
    if (text.trim().equalsIgnoreCase("off")) {
      return Optional.empty();
    }
    return Optional.of(positiveDuration(text));
  }

  static Duration positiveDuration(String text) {
    Duration duration = Durations.parse(text);
    if (duration.isZero()) {
      throw new InvalidValueException(text, "is zero; expected a duration greater than 0, e.g. 5s");
    }
    return duration;
  }

  static long positiveSize(String text) {
    long size = Sizes.parse(text);
    if (size == 0) {
      throw new InvalidValueException(text, "is zero; expected a size greater than 0, e.g. 64MB");
    }
    return size;
  }

  static Function<String, Long> longAtLeast(long min) {
    return text -> wholeNumber(text, min, Long.MAX_VALUE, "a whole number of at least " + min);
  }

  static Function<String, Integer> intBetween(int min, int max) {
    return text -> (int) wholeNumber(text, min, max, "a whole number from " + min + " to " + max);
  }

  private static long wholeNumber(String text, long min, long max, String expected) {
    long value;
    try {
      value = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new InvalidValueException(text, "is not a whole number; expected " + expected);
    }
    if (value < min || value > max) {
      throw new InvalidValueException(text, "is out of range; expected " + expected);
    }
    return value;
  }

  /**
   * {@code auto} (empty: the detector derives it) or one access in N, N a power of two up to 65536.
   */
  static OptionalInt sampling(String text) {
    if (text.trim().equalsIgnoreCase("auto")) {
      return OptionalInt.empty();
    }
    String expected =
        "auto, or a power of two from 1 to 65536 (one access in that many is counted)";
    int n = (int) wholeNumber(text, 1, 1 << 16, expected);
    if (Integer.bitCount(n) != 1) {
      throw new InvalidValueException(text, "is not a power of two; expected " + expected);
    }
    return OptionalInt.of(n);
  }

  /** {@code off} (empty) or a TCP port; 0 lets the system choose a free one. */
  static OptionalInt port(String text) {
    if (text.trim().equalsIgnoreCase("off")) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(
        (int) wholeNumber(text, 0, 65535, "off, or a port from 0 (any free port) to 65535"));
  }

  /**
   * A host name or an IPv4 or IPv6 address, checked for its form only: it is resolved when the
   * endpoint binds.
   */
  static String host(String text) {
    String t = text.trim();
    String bare = t.startsWith("[") && t.endsWith("]") ? t.substring(1, t.length() - 1) : t;
    if (HOST_NAME.matcher(bare).matches() || IPV6.matcher(bare).matches()) {
      return bare;
    }
    throw new InvalidValueException(
        text, "is not a host name or address; expected e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost");
  }

  static List<Glob> nonEmptyGlobs(String text) {
    List<Glob> globs = Glob.parseList(text);
    if (globs.isEmpty()) {
      throw new InvalidValueException(
          text,
          "is empty, so no key could ever be cached; "
              + "expected one or more comma-separated globs, e.g. * (use hotkey.cache.enabled=false to cache nothing)");
    }
    return globs;
  }

  static String headerName(String text) {
    String t = text.trim();
    if (!HEADER_NAME.matcher(t).matches()) {
      throw new InvalidValueException(text, "is not a header name; " + HEADER_EXPECTED);
    }
    return t;
  }

  static List<String> headerNames(String text) {
    List<String> names = new ArrayList<>();
    for (String entry :
        CommaList.split(
            text, "expected comma-separated HTTP header names, e.g. Authorization,Cookie")) {
      names.add(headerName(entry));
    }
    return List.copyOf(names);
  }

  /** Cookie names are tokens, like header names; blank is none. */
  static List<String> cookieNames(String text) {
    String expected = "expected comma-separated cookie names, e.g. JSESSIONID, SESSION";
    List<String> names = new ArrayList<>();
    for (String entry : CommaList.split(text, expected)) {
      if (!HEADER_NAME.matcher(entry).matches()) {
        throw new InvalidValueException(
            text, "has an invalid cookie name " + entry + "; " + expected);
      }
      names.add(entry);
    }
    return List.copyOf(names);
  }

  /** One route without wildcards ({@code POST /idempotency-tokens}); blank is none. */
  static Optional<RoutePattern> exactRoute(String text) {
    if (text.isBlank()) {
      return Optional.empty();
    }
    RoutePattern route = RoutePattern.parse(text);
    if (!route.isExact()) {
      throw new InvalidValueException(
          text,
          "has a wildcard; expected one method and one path without *, e.g. POST /idempotency-tokens");
    }
    return Optional.of(route);
  }

  /** A non-empty key prefix without spaces, braces or glob characters. */
  static String keyPrefix(String text) {
    String t = text.trim();
    if (t.isEmpty() || !t.chars().allMatch(c -> c > ' ' && c < 127 && "{}*?[]\\".indexOf(c) < 0)) {
      throw new InvalidValueException(
          text,
          "is not a key prefix; expected printable ASCII without spaces, braces or glob characters, e.g. hotkey:");
    }
    return t;
  }

  /** Blank means none; otherwise a fully qualified Java class name. */
  static Optional<String> className(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    if (!CLASS_NAME.matcher(t).matches()) {
      throw new InvalidValueException(
          text,
          "is not a class name; expected a fully qualified name, e.g. io.lettuce.core.protocol.CommandHandler");
    }
    return Optional.of(t);
  }

  static <E extends Enum<E>> Function<String, E> oneOf(Class<E> type) {
    return text -> {
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equalsIgnoreCase(text.trim())) {
          return constant;
        }
      }
      throw new InvalidValueException(
          text,
          "is not one of the choices; expected "
              + Arrays.stream(type.getEnumConstants())
                  .map(c -> c.name().toLowerCase(Locale.ROOT))
                  .collect(Collectors.joining(" or ")));
    };
  }

  /**
   * Blank means "not set"; whether it is required depends on the store, which the loader checks.
   */
  static Optional<URI> redisUri(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(t);
      if (("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme()))
          && uri.getHost() != null
          && uri.getPort() > 0
          && uri.getPort() <= 65535
          && DATABASE.matcher(uri.getRawPath()).matches()
          && (uri.getRawQuery() == null || PROTOCOL.matcher(uri.getRawQuery()).matches())
          && uri.getRawFragment() == null) {
        return Optional.of(uri);
      }
    } catch (URISyntaxException e) {
      // reported below with the expected form, which says more than the parser's message
    }
    throw new InvalidValueException(text, "is not a Redis URI; " + REDIS_URI_EXPECTED);
  }

  static Optional<Path> path(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Path.of(t));
    } catch (InvalidPathException e) {
      throw new InvalidValueException(
          text, "is not a file path (" + e.getReason() + "); expected e.g. /etc/hotkey.properties");
    }
  }
}
