package io.hotkey.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The agent's effective configuration: immutable, fully validated, with typed getters named after
 * the keys (see {@link ConfigKey} for keys, defaults and meanings).
 */
public final class HotkeyConfig {
  private final Map<ConfigKey, Object> values;
  private final Map<ConfigKey, Setting> settings;
  private final List<String> warnings;
  private final KeyFilter cacheKeyFilter;

  HotkeyConfig(
      Map<ConfigKey, Object> values, Map<ConfigKey, Setting> settings, List<String> warnings) {
    this.values = new EnumMap<>(values);
    this.settings = new EnumMap<>(settings);
    this.warnings = List.copyOf(warnings);
    List<Glob> exclude = new ArrayList<>(cacheExclude());
    // the agent's own keys (the fleet's counts) are never served from a cache
    exclude.add(Glob.parse(fleetNamespace() + "*"));
    this.cacheKeyFilter = new KeyFilter(cacheInclude(), exclude);
  }

  /**
   * Reads the configuration from its sources, highest first: system properties {@code hotkey.*},
   * environment {@code HOTKEY_*}, agent arguments ({@code hotkey.*=v} pairs) and the properties
   * file they name ({@code config=/path} or {@code hotkey.config}), then defaults.
   *
   * @param agentArgs comma-separated {@code k=v} pairs as passed to premain/agentmain; may be null
   * @throws ConfigException listing every invalid value, one per line
   */
  public static HotkeyConfig load(
      String agentArgs, Map<String, String> systemProperties, Map<String, String> environment)
      throws ConfigException {
    return new ConfigLoader().load(agentArgs, systemProperties, environment);
  }

  public static HotkeyConfig defaults() {
    try {
      return load(null, Map.of(), Map.of());
    } catch (ConfigException e) {
      throw new IllegalStateException("a default in ConfigKey is invalid: " + e.getMessage(), e);
    }
  }

  public static List<String> knownKeys() {
    return Arrays.stream(ConfigKey.values())
        .map(ConfigKey::key)
        .collect(Collectors.toUnmodifiableList());
  }

  /** Unknown keys found in any source, each with the nearest valid key when one is close. */
  public List<String> warnings() {
    return warnings;
  }

  /** Every key's effective value and source, passwords hidden, in {@link ConfigKey} order. */
  public List<ConfigEntry> entries() {
    List<ConfigEntry> entries = new ArrayList<>();
    for (Setting setting : settings.values()) {
      String value = setting.value.trim();
      if (setting.key == ConfigKey.IDEMPOTENCY_REDIS_URI
          || setting.key == ConfigKey.REDIS_URI
          || setting.key == ConfigKey.FLEET_REDIS_URI) {
        value = hidePassword(value);
      }
      entries.add(new ConfigEntry(setting.key.key(), value, setting.origin));
    }
    return List.copyOf(entries);
  }

  /** One {@code key = value (source)} line per key, for the startup log. */
  public String describe() {
    StringBuilder out = new StringBuilder();
    for (ConfigEntry entry : entries()) {
      out.append(entry.key())
          .append(" = ")
          .append(entry.value().isEmpty() ? "\"\"" : entry.value())
          .append(" (")
          .append(entry.source())
          .append(")\n");
    }
    return out.toString();
  }

  // the startup log must not leak the Redis password of redis://user:password@host
  private static String hidePassword(String uri) {
    return uri.replaceFirst("//[^/@]*@", "//***@");
  }

  public boolean enabled() {
    return value(ConfigKey.ENABLED);
  }

  public boolean failFast() {
    return value(ConfigKey.FAIL_FAST);
  }

  public Duration detectWindow() {
    return value(ConfigKey.DETECT_WINDOW);
  }

  public long detectThreshold() {
    return value(ConfigKey.DETECT_THRESHOLD);
  }

  /** Writes per second that make a hot key write-hot: {@link #detectThreshold()} unless set. */
  public long detectWriteThreshold() {
    long writes = value(ConfigKey.DETECT_WRITE_THRESHOLD);
    return writes == 0 ? detectThreshold() : writes;
  }

  public int detectTopK() {
    return value(ConfigKey.DETECT_TOP_K);
  }

  public Duration detectCoolDown() {
    return value(ConfigKey.DETECT_COOL_DOWN);
  }

  /** One access in this many is counted; empty for {@code auto}. */
  public OptionalInt detectSampling() {
    return value(ConfigKey.DETECT_SAMPLING);
  }

  public boolean cacheEnabled() {
    return value(ConfigKey.CACHE_ENABLED);
  }

  public Duration cacheTtl() {
    return value(ConfigKey.CACHE_TTL);
  }

  public long cacheMaxBytes() {
    return value(ConfigKey.CACHE_MAX_BYTES);
  }

  public long cacheMaxEntryBytes() {
    return value(ConfigKey.CACHE_MAX_ENTRY_BYTES);
  }

  public List<Glob> cacheInclude() {
    return value(ConfigKey.CACHE_INCLUDE);
  }

  public List<Glob> cacheExclude() {
    return value(ConfigKey.CACHE_EXCLUDE);
  }

  /**
   * {@link #cacheInclude()} and {@link #cacheExclude()} combined, and never a key under {@link
   * #fleetNamespace()}.
   */
  /** The share of the TTL past which a read refreshes its entry ahead of expiry, if set. */
  public OptionalDouble cacheRefreshAhead() {
    return value(ConfigKey.CACHE_REFRESH_AHEAD);
  }

  /** Invalidations received per read served above which a key stops being served; empty: never. */
  public OptionalDouble cacheFanOutLimit() {
    return value(ConfigKey.CACHE_FAN_OUT_LIMIT);
  }

  /** How long a key the fan-out limit demoted stays unserved. */
  public Duration cacheFanOutCoolDown() {
    return value(ConfigKey.CACHE_FAN_OUT_COOL_DOWN);
  }

  /** How old a value may be to answer a read that failed on its connection, if at all. */
  public Optional<Duration> cacheServeStaleOnError() {
    return value(ConfigKey.CACHE_SERVE_STALE_ON_ERROR);
  }

  public KeyFilter cacheKeyFilter() {
    return cacheKeyFilter;
  }

  /** Zero: fleet-wide detection is off. */
  public long detectFleetThreshold() {
    return value(ConfigKey.DETECT_FLEET_THRESHOLD);
  }

  public String fleetNamespace() {
    return value(ConfigKey.FLEET_NAMESPACE);
  }

  /**
   * Where the fleet's counts are kept, when set; else {@link #redisUri()} or the discovered one.
   */
  public Optional<URI> fleetRedisUri() {
    return value(ConfigKey.FLEET_REDIS_URI);
  }

  public Invalidation cacheInvalidation() {
    return value(ConfigKey.CACHE_INVALIDATION);
  }

  /**
   * Where and as whom the agent's own tracking connections connect, when not the application's own
   * server and AUTH.
   */
  public Optional<URI> redisUri() {
    return value(ConfigKey.REDIS_URI);
  }

  /** Zero means the periodic report is off. */
  public Duration reportInterval() {
    return value(ConfigKey.REPORT_INTERVAL);
  }

  public RouteTable idempotencyRoutes() {
    return value(ConfigKey.IDEMPOTENCY_ROUTES);
  }

  public String idempotencyHeader() {
    return value(ConfigKey.IDEMPOTENCY_HEADER);
  }

  public List<String> idempotencyScopeHeaders() {
    return value(ConfigKey.IDEMPOTENCY_SCOPE_HEADERS);
  }

  /** Cookies whose values scope a record to its caller, with the scope headers and principal. */
  public List<String> idempotencyScopeCookies() {
    return value(ConfigKey.IDEMPOTENCY_SCOPE_COOKIES);
  }

  public RouteTable idempotencyDedupeRoutes() {
    return value(ConfigKey.IDEMPOTENCY_DEDUPE_ROUTES);
  }

  public Duration idempotencyDedupeWindow() {
    return value(ConfigKey.IDEMPOTENCY_DEDUPE_WINDOW);
  }

  /** The route the agent answers with new tokens; an exact method and path. */
  public Optional<RoutePattern> idempotencyTokenEndpoint() {
    return value(ConfigKey.IDEMPOTENCY_TOKEN_ENDPOINT);
  }

  public RouteTable idempotencyTokenRoutes() {
    return value(ConfigKey.IDEMPOTENCY_TOKEN_ROUTES);
  }

  public Duration idempotencyTokenTtl() {
    return value(ConfigKey.IDEMPOTENCY_TOKEN_TTL);
  }

  public Duration idempotencyRedisTimeout() {
    return value(ConfigKey.IDEMPOTENCY_REDIS_TIMEOUT);
  }

  public Optional<Path> idempotencyRedisTrustStore() {
    return value(ConfigKey.IDEMPOTENCY_REDIS_TRUST_STORE);
  }

  public boolean idempotencyRequireKey() {
    return value(ConfigKey.IDEMPOTENCY_REQUIRE_KEY);
  }

  public IdempotencyStore idempotencyStore() {
    return value(ConfigKey.IDEMPOTENCY_STORE);
  }

  /** Present whenever {@link #idempotencyStore()} is {@link IdempotencyStore#REDIS}. */
  public Optional<URI> idempotencyRedisUri() {
    return value(ConfigKey.IDEMPOTENCY_REDIS_URI);
  }

  public Duration idempotencyTtl() {
    return value(ConfigKey.IDEMPOTENCY_TTL);
  }

  public Duration idempotencyLease() {
    return value(ConfigKey.IDEMPOTENCY_LEASE);
  }

  public long idempotencyMaxBody() {
    return value(ConfigKey.IDEMPOTENCY_MAX_BODY);
  }

  public StoreFailurePolicy idempotencyOnStoreFailure() {
    return value(ConfigKey.IDEMPOTENCY_ON_STORE_FAILURE);
  }

  /** The built-in HTTP endpoint's port; empty when it is off, 0 for any free port. */
  public OptionalInt httpPort() {
    return value(ConfigKey.HTTP_PORT);
  }

  /** The address the HTTP endpoint binds to (brackets of an IPv6 literal removed). */
  public String httpHost() {
    return value(ConfigKey.HTTP_HOST);
  }

  /** The properties file that was read, if any ({@code hotkey.config}). */
  public Optional<Path> configFile() {
    return value(ConfigKey.CONFIG);
  }

  /** Diagnostic: every Nth agent hook throws internally; 0 never. */
  public int debugFailEvery() {
    return value(ConfigKey.DEBUG_FAIL_EVERY);
  }

  /** Whether every key is served from its first access ({@code hotkey.debug.every-key-hot}). */
  public boolean debugEveryKeyHot() {
    return value(ConfigKey.DEBUG_EVERY_KEY_HOT);
  }

  /** Where woven classes are kept between runs, if anywhere ({@code hotkey.weave-cache.dir}). */
  public Optional<Path> weaveCacheDir() {
    return value(ConfigKey.WEAVE_CACHE_DIR);
  }

  /** The class whose weaving fails on purpose, if any ({@code hotkey.debug.fail-weaving}). */
  public Optional<String> debugFailWeaving() {
    return value(ConfigKey.DEBUG_FAIL_WEAVING);
  }

  Setting setting(ConfigKey key) {
    return settings.get(key);
  }

  Object rawValue(ConfigKey key) {
    return values.get(key);
  }

  /** How keys are shown in logs, metrics, JMX, the endpoint and {@code status}. */
  public Redaction reportRedact() {
    return value(ConfigKey.REPORT_REDACT);
  }

  /** Bytes of a key kept readable before its hash when {@link #reportRedact()} is hash. */
  public int reportRedactPrefix() {
    return value(ConfigKey.REPORT_REDACT_PREFIX);
  }

  // the value's type is fixed by the key's parser in ConfigKey; the getters' tests cover each
  // pairing
  // each key's parser made the value of the type its accessor returns
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  private <T> T value(ConfigKey key) {
    return (T) values.get(key);
  }
}
