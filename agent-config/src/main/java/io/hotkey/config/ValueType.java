package io.hotkey.config;

import java.util.function.Function;

/**
 * How the value of a {@link ConfigKey} that takes no bounds is read. One switch rather than a
 * method reference per key: the JVM spins a class for every method reference on its first use, and
 * the configuration is read in {@code premain}, before the application's own start.
 */
enum ValueType implements Function<String, Object> {
  BOOL,
  POSITIVE_DURATION,
  DURATION,
  DURATION_OR_OFF,
  POSITIVE_SIZE,
  PERCENT_OR_OFF,
  SHARE_OF_READS_OR_OFF,
  SAMPLING,
  PORT,
  HOST,
  PATH,
  REDIS_URI,
  KEY_PREFIX,
  CLASS_NAME,
  GLOBS,
  NON_EMPTY_GLOBS,
  ROUTES,
  EXACT_ROUTE,
  HEADER_NAME,
  HEADER_NAMES,
  COOKIE_NAMES;

  @Override
  public Object apply(String text) {
    switch (this) {
      case BOOL:
        return ValueParsers.bool(text);
      case POSITIVE_DURATION:
        return ValueParsers.positiveDuration(text);
      case DURATION:
        return Durations.parse(text);
      case DURATION_OR_OFF:
        return ValueParsers.durationOrOff(text);
      case POSITIVE_SIZE:
        return ValueParsers.positiveSize(text);
      case PERCENT_OR_OFF:
        return ValueParsers.percentOrOff(text);
      case SHARE_OF_READS_OR_OFF:
        return ValueParsers.shareOfReadsOrOff(text);
      case SAMPLING:
        return ValueParsers.sampling(text);
      case PORT:
        return ValueParsers.port(text);
      case HOST:
        return ValueParsers.host(text);
      case PATH:
        return ValueParsers.path(text);
      case REDIS_URI:
        return ValueParsers.redisUri(text);
      case KEY_PREFIX:
        return ValueParsers.keyPrefix(text);
      case CLASS_NAME:
        return ValueParsers.className(text);
      case GLOBS:
        return Glob.parseList(text);
      case NON_EMPTY_GLOBS:
        return ValueParsers.nonEmptyGlobs(text);
      case ROUTES:
        return RouteTable.parse(text);
      case EXACT_ROUTE:
        return ValueParsers.exactRoute(text);
      case HEADER_NAME:
        return ValueParsers.headerName(text);
      case HEADER_NAMES:
        return ValueParsers.headerNames(text);
      case COOKIE_NAMES:
        return ValueParsers.cookieNames(text);
    }
    throw new AssertionError(this);
  }
}
