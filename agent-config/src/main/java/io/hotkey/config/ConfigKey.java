package io.hotkey.config;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every configuration key with its default, its meaning and how its value is read: the single
 * source of truth.
 */
public enum ConfigKey {
  ENABLED(
      "hotkey.enabled",
      "true",
      "master switch; false leaves the application untouched",
      ValueType.BOOL),
  FAIL_FAST(
      "hotkey.fail-fast",
      "false",
      "let a bad configuration fail the JVM start instead of leaving the agent inactive",
      ValueType.BOOL),
  DETECT_WINDOW(
      "hotkey.detect.window",
      "1s",
      "sliding window over which key access rates are measured",
      ValueType.POSITIVE_DURATION),
  DETECT_THRESHOLD(
      "hotkey.detect.threshold",
      "1000",
      "accesses per second (per JVM) that make a key hot",
      ValueParsers.longAtLeast(1)),
  DETECT_WRITE_THRESHOLD(
      "hotkey.detect.write-threshold",
      "0",
      "writes per second that make a hot key write-hot (logged with the advice to split it, never served locally); 0: hotkey.detect.threshold",
      ValueParsers.longAtLeast(0)),
  DETECT_TOP_K(
      "hotkey.detect.top-k",
      "100",
      "most keys that can be hot at once",
      ValueParsers.intBetween(1, 10_000)),
  DETECT_COOL_DOWN(
      "hotkey.detect.cool-down",
      "10s",
      "how long a key stays hot below the threshold",
      ValueType.DURATION),
  DETECT_SAMPLING(
      "hotkey.detect.sampling",
      "auto",
      "count one access in N (a power of two; 1 counts all); auto: the sparsest that counts 50 per window at the threshold",
      ValueType.SAMPLING),
  DETECT_FLEET_THRESHOLD(
      "hotkey.detect.fleet-threshold",
      "0",
      "accesses per second summed over every instance that make a key hot everywhere, counted in hotkey.fleet.redis.uri (else hotkey.redis.uri, else the one Redis deployment the application uses); 0 turns fleet detection off",
      ValueParsers.longAtLeast(0)),
  FLEET_NAMESPACE(
      "hotkey.fleet.namespace",
      "hotkey:",
      "prefix of the agent's own keys in Redis (the fleet aggregates); never detected or cached",
      ValueType.KEY_PREFIX),
  FLEET_REDIS_URI(
      "hotkey.fleet.redis.uri",
      "",
      "redis[s]://[user:password@]host:port (standalone or any node of a Cluster) where the fleet's counts are kept; default hotkey.redis.uri, else the one Redis deployment the application uses",
      ValueType.REDIS_URI),
  CACHE_ENABLED(
      "hotkey.cache.enabled", "true", "serve hot keys from a local cache", ValueType.BOOL),
  CACHE_TTL(
      "hotkey.cache.ttl",
      "5s",
      "longest age of a locally served value",
      ValueType.POSITIVE_DURATION),
  CACHE_MAX_BYTES(
      "hotkey.cache.max-bytes", "64MB", "bound of the local cache", ValueType.POSITIVE_SIZE),
  CACHE_MAX_ENTRY_BYTES(
      "hotkey.cache.max-entry-bytes",
      "256KB",
      "larger replies are never cached; at most max-bytes",
      ValueType.POSITIVE_SIZE),
  CACHE_INCLUDE(
      "hotkey.cache.include",
      "*",
      "comma-separated globs of keys that may be cached",
      ValueType.NON_EMPTY_GLOBS),
  CACHE_EXCLUDE(
      "hotkey.cache.exclude",
      "",
      "comma-separated globs of keys that are never cached",
      ValueType.GLOBS),
  CACHE_REFRESH_AHEAD(
      "hotkey.cache.refresh-ahead",
      "off",
      "past this share of the TTL (e.g. 80%) the next read of an entry refreshes it from Redis while every other reader is still served it; off never",
      ValueType.PERCENT_OR_OFF),
  CACHE_SERVE_STALE_ON_ERROR(
      "hotkey.cache.serve-stale-on-error",
      "off",
      "when a read of a hot key fails on its connection, answer it from its last value if no older than this; off never",
      ValueType.DURATION_OR_OFF),
  CACHE_FAN_OUT_LIMIT(
      "hotkey.cache.fan-out-limit",
      "50%",
      "a served key whose invalidations received (tracking pushes, e.g. other processes' writes) exceed this share of its reads here over a whole window, in which it was read here at its hot rate, stops being served and tracked for hotkey.cache.fan-out-cool-down (1% to 1000%); off never",
      ValueType.SHARE_OF_READS_OR_OFF),
  CACHE_FAN_OUT_COOL_DOWN(
      "hotkey.cache.fan-out-cool-down",
      "60s",
      "how long a key the fan-out limit demoted stays unserved before it is tried again; twice as long each time it is demoted again while hot (at most 16 times), each longer by up to half at random",
      ValueType.POSITIVE_DURATION),
  CACHE_INVALIDATION(
      "hotkey.cache.invalidation",
      "tracking",
      "how other processes' writes reach local entries: tracking (Redis client tracking, falls back to ttl where the server refuses it) or ttl",
      ValueParsers.oneOf(Invalidation.class)),
  REDIS_URI(
      "hotkey.redis.uri",
      "",
      "redis://[user:password@]host:port[?protocol=2|3] (rediss:// for TLS): the server the agent's tracking connection uses instead of the application's own (and its AUTH), and where the fleet's counts are kept unless hotkey.fleet.redis.uri says otherwise",
      ValueType.REDIS_URI),
  REPORT_INTERVAL(
      "hotkey.report.interval",
      "60s",
      "period of the top-keys log line; 0 turns it off",
      ValueType.DURATION),
  REPORT_REDACT(
      "hotkey.report.redact",
      "none",
      "how keys are shown in logs, metric tags, JMX, the endpoint and status: none or hash (a stable short hash)",
      ValueParsers.oneOf(Redaction.class)),
  REPORT_REDACT_PREFIX(
      "hotkey.report.redact-prefix",
      "0",
      "with hotkey.report.redact=hash, the first N bytes of a key stay readable before its hash",
      ValueParsers.intBetween(0, 1024)),
  IDEMPOTENCY_ROUTES(
      "hotkey.idempotency.routes",
      "",
      "comma-separated routes that deduplicate retries, e.g. POST /orders/**",
      ValueType.ROUTES),
  IDEMPOTENCY_HEADER(
      "hotkey.idempotency.header",
      "Idempotency-Key",
      "request header carrying the idempotency key",
      ValueType.HEADER_NAME),
  IDEMPOTENCY_SCOPE_HEADERS(
      "hotkey.idempotency.scope-headers",
      "Authorization",
      "request headers whose hashed values scope a key to its caller",
      ValueType.HEADER_NAMES),
  IDEMPOTENCY_SCOPE_COOKIES(
      "hotkey.idempotency.scope-cookies",
      "JSESSIONID, SESSION",
      "cookies whose hashed values scope a key to its caller (with the authenticated principal)",
      ValueType.COOKIE_NAMES),
  IDEMPOTENCY_REQUIRE_KEY(
      "hotkey.idempotency.require-key",
      "false",
      "answer 400 when a configured route gets no key",
      ValueType.BOOL),
  IDEMPOTENCY_DEDUPE_ROUTES(
      "hotkey.idempotency.dedupe-routes",
      "",
      "routes whose requests without a key are deduplicated by caller, request and body",
      ValueType.ROUTES),
  IDEMPOTENCY_DEDUPE_WINDOW(
      "hotkey.idempotency.dedupe-window",
      "5s",
      "how long a keyless request's answer is replayed to its duplicates",
      ValueType.POSITIVE_DURATION),
  IDEMPOTENCY_TOKEN_ENDPOINT(
      "hotkey.idempotency.token-endpoint",
      "",
      "route the agent answers with a new single-use token, e.g. POST /idempotency-tokens",
      ValueType.EXACT_ROUTE),
  IDEMPOTENCY_TOKEN_ROUTES(
      "hotkey.idempotency.token-routes",
      "",
      "routes that require a token from the token endpoint in the key header",
      ValueType.ROUTES),
  IDEMPOTENCY_TOKEN_TTL(
      "hotkey.idempotency.token-ttl",
      "10m",
      "how long an issued token stays usable",
      ValueType.POSITIVE_DURATION),
  IDEMPOTENCY_STORE(
      "hotkey.idempotency.store",
      "memory",
      "where idempotency records live: memory or redis",
      ValueParsers.oneOf(IdempotencyStore.class)),
  IDEMPOTENCY_REDIS_URI(
      "hotkey.idempotency.redis.uri",
      "",
      "redis[s]://[user:password@]host:port[/db][?protocol=3] of the redis store; required for it",
      ValueType.REDIS_URI),
  IDEMPOTENCY_REDIS_TIMEOUT(
      "hotkey.idempotency.redis.timeout",
      "2s",
      "connect and command timeout of the redis store",
      ValueType.POSITIVE_DURATION),
  IDEMPOTENCY_REDIS_TRUST_STORE(
      "hotkey.idempotency.redis.trust-store",
      "",
      "CA certificates (PEM or DER) or a JKS/PKCS12 trust store for rediss://; default: the JVM's",
      ValueType.PATH),
  IDEMPOTENCY_TTL(
      "hotkey.idempotency.ttl",
      "24h",
      "how long a completed response is replayed",
      ValueType.POSITIVE_DURATION),
  IDEMPOTENCY_LEASE(
      "hotkey.idempotency.lease",
      "30s",
      "how long an unfinished claim blocks retries",
      ValueType.POSITIVE_DURATION),
  IDEMPOTENCY_MAX_BODY(
      "hotkey.idempotency.max-body",
      "1MB",
      "largest response body that is stored for replay",
      ValueType.POSITIVE_SIZE),
  IDEMPOTENCY_ON_STORE_FAILURE(
      "hotkey.idempotency.on-store-failure",
      "reject",
      "when the store is unreachable: reject (503) or allow (pass through)",
      ValueParsers.oneOf(StoreFailurePolicy.class)),
  HTTP_PORT(
      "hotkey.http.port",
      "off",
      "port of the built-in HTTP endpoint (/metrics, /api/hotkeys, live page); off, or 0 for any free port",
      ValueType.PORT),
  HTTP_HOST("hotkey.http.host", "127.0.0.1", "address the HTTP endpoint binds to", ValueType.HOST),
  CONFIG("hotkey.config", "", "properties file to read further keys from", ValueType.PATH),
  WEAVE_CACHE_DIR(
      "hotkey.weave-cache.dir",
      "",
      "directory where woven classes are kept between runs, so that a restart with the same agent and libraries skips weaving; read at start",
      ValueType.PATH),
  DEBUG_FAIL_EVERY(
      "hotkey.debug.fail-every",
      "0",
      "diagnostic: every Nth agent hook throws internally; 0 never",
      ValueParsers.intBetween(0, Integer.MAX_VALUE)),
  DEBUG_FAIL_WEAVING(
      "hotkey.debug.fail-weaving",
      "",
      "diagnostic: weaving this class (a fully qualified name) fails, as if another agent had broken it",
      ValueType.CLASS_NAME),
  DEBUG_EVERY_KEY_HOT(
      "hotkey.debug.every-key-hot",
      "false",
      "diagnostic: every key is hot, and served, from its first access (to run a client's own test suite through the cache)",
      ValueType.BOOL);

  static final String PREFIX = "hotkey.";
  static final String ENV_PREFIX = "HOTKEY_";

  private final String key;
  private final String defaultValue;
  private final String description;

  @SuppressWarnings("ImmutableEnumChecker") // every parser is a stateless function
  private final Function<String, ?> parser;

  ConfigKey(String key, String defaultValue, String description, Function<String, ?> parser) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
    this.parser = parser;
  }

  /** The property name, e.g. {@code hotkey.detect.top-k}. */
  public String key() {
    return key;
  }

  /** The environment variable name, e.g. {@code HOTKEY_DETECT_TOP_K}. */
  public String envName() {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  public String defaultValue() {
    return defaultValue;
  }

  public String description() {
    return description;
  }

  public static Optional<ConfigKey> byKey(String key) {
    for (ConfigKey candidate : values()) {
      if (candidate.key.equals(key)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Environment names lose the dot/dash distinction, so they are matched against each key's env
   * form.
   */
  public static Optional<ConfigKey> byEnvName(String envName) {
    for (ConfigKey candidate : values()) {
      if (candidate.envName().equals(envName)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  Object parse(String text) {
    return parser.apply(text);
  }
}
