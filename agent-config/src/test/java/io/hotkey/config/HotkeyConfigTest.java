package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HotkeyConfigTest {

  @TempDir Path dir;

  private Path file(String... lines) throws IOException {
    return Files.write(dir.resolve("hotkey.properties"), List.of(lines));
  }

  private static String errorOf(
      String agentArgs, Map<String, String> sys, Map<String, String> env) {
    return assertThrows(ConfigException.class, () -> HotkeyConfig.load(agentArgs, sys, env))
        .getMessage();
  }

  private static void assertContainsAll(String text, String... parts) {
    for (String part : parts) {
      assertTrue(text.contains(part), () -> "expected <" + part + "> in:\n" + text);
    }
  }

  @Test
  void defaultsMatchTheContract() {
    HotkeyConfig c = HotkeyConfig.defaults();
    assertTrue(c.enabled());
    assertFalse(c.failFast());
    assertEquals(Duration.ofSeconds(1), c.detectWindow());
    assertEquals(1000L, c.detectThreshold());
    assertEquals(100, c.detectTopK());
    assertEquals(Duration.ofSeconds(10), c.detectCoolDown());
    assertEquals(OptionalInt.empty(), c.detectSampling());
    assertTrue(c.cacheEnabled());
    assertEquals(Duration.ofSeconds(5), c.cacheTtl());
    assertEquals(64L << 20, c.cacheMaxBytes());
    assertEquals(256L << 10, c.cacheMaxEntryBytes());
    assertEquals("[*]", c.cacheInclude().toString());
    assertEquals(List.of(), c.cacheExclude());
    assertTrue(c.cacheKeyFilter().accepts("any:key"));
    assertEquals(Duration.ofSeconds(60), c.reportInterval());
    assertTrue(c.idempotencyRoutes().patterns().isEmpty());
    assertEquals("Idempotency-Key", c.idempotencyHeader());
    assertEquals(List.of("Authorization"), c.idempotencyScopeHeaders());
    assertFalse(c.idempotencyRequireKey());
    assertEquals(List.of("JSESSIONID", "SESSION"), c.idempotencyScopeCookies());
    assertTrue(c.idempotencyDedupeRoutes().patterns().isEmpty());
    assertEquals(Duration.ofSeconds(5), c.idempotencyDedupeWindow());
    assertEquals(Optional.empty(), c.idempotencyTokenEndpoint());
    assertTrue(c.idempotencyTokenRoutes().patterns().isEmpty());
    assertEquals(Duration.ofMinutes(10), c.idempotencyTokenTtl());
    assertEquals(Duration.ofSeconds(2), c.idempotencyRedisTimeout());
    assertEquals(Optional.empty(), c.idempotencyRedisTrustStore());
    assertEquals(IdempotencyStore.MEMORY, c.idempotencyStore());
    assertEquals(Optional.empty(), c.idempotencyRedisUri());
    assertEquals(Duration.ofHours(24), c.idempotencyTtl());
    assertEquals(Duration.ofSeconds(30), c.idempotencyLease());
    assertEquals(1L << 20, c.idempotencyMaxBody());
    assertEquals(StoreFailurePolicy.REJECT, c.idempotencyOnStoreFailure());
    assertEquals(Optional.empty(), c.configFile());
    assertEquals(0, c.debugFailEvery());
    assertEquals(OptionalInt.empty(), c.httpPort());
    assertEquals("127.0.0.1", c.httpHost());
    assertEquals(Invalidation.TRACKING, c.cacheInvalidation());
    assertEquals(Optional.empty(), c.redisUri());
    assertEquals(0L, c.detectFleetThreshold());
    assertEquals("hotkey:", c.fleetNamespace());
    assertEquals(List.of(), c.warnings());
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "9464", "65535", " 8080 "})
  void httpPortTakesAPortOrZeroForAnyFreeOne(String port) throws Exception {
    HotkeyConfig c = HotkeyConfig.load(null, Map.of("hotkey.http.port", port), Map.of());
    assertEquals(OptionalInt.of(Integer.parseInt(port.trim())), c.httpPort());
  }

  @ParameterizedTest
  @ValueSource(strings = {"off", "OFF"})
  void httpPortOffLeavesTheEndpointOff(String off) throws Exception {
    assertEquals(
        OptionalInt.empty(),
        HotkeyConfig.load(null, Map.of("hotkey.http.port", off), Map.of()).httpPort());
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "65536", "http", "80.5", ""})
  void httpPortRejectsWhatIsNoPort(String port) {
    assertContainsAll(
        errorOf(null, Map.of("hotkey.http.port", port), Map.of()),
        "hotkey.http.port: \"" + port + "\" (from system property)",
        "expected off, or a port from 0 (any free port) to 65535");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"127.0.0.1", "0.0.0.0", "localhost", "metrics-1.internal", "::1", "[::1]"})
  void httpHostTakesNamesAndAddresses(String host) throws Exception {
    HotkeyConfig c = HotkeyConfig.load(null, Map.of("hotkey.http.host", host), Map.of());
    assertEquals(host.replace("[", "").replace("]", ""), c.httpHost());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "http://localhost", "host:9090", "a b", "-bad.example"})
  void httpHostRejectsWhatIsNoHost(String host) {
    assertContainsAll(
        errorOf(null, Map.of("hotkey.http.host", host), Map.of()),
        "hotkey.http.host: \"" + host + "\" (from system property) is not a host name or address");
  }

  @Test
  void knownKeysListsEveryKeyOnce() {
    List<String> keys = HotkeyConfig.knownKeys();
    assertEquals(ConfigKey.values().length, keys.size());
    assertTrue(keys.contains("hotkey.detect.top-k"));
    assertTrue(keys.contains("hotkey.debug.fail-every"));
  }

  @Test
  void everySettingIsRead() throws Exception {
    Map<String, String> sys =
        Map.ofEntries(
            Map.entry("hotkey.enabled", "false"),
            Map.entry("hotkey.fail-fast", "TRUE"),
            Map.entry("hotkey.detect.window", "500ms"),
            Map.entry("hotkey.detect.threshold", "20"),
            Map.entry("hotkey.detect.top-k", "10000"),
            Map.entry("hotkey.detect.cool-down", "0"),
            Map.entry("hotkey.detect.sampling", "64"),
            Map.entry("hotkey.cache.enabled", "false"),
            Map.entry("hotkey.cache.ttl", "2m"),
            Map.entry("hotkey.cache.max-bytes", "1GB"),
            Map.entry("hotkey.cache.max-entry-bytes", "1GB"),
            Map.entry("hotkey.cache.include", "user:*, item:*"),
            Map.entry("hotkey.cache.exclude", "*:session"),
            Map.entry("hotkey.report.interval", "0"),
            Map.entry("hotkey.idempotency.routes", "POST /orders/**, PUT /payments/*"),
            Map.entry("hotkey.idempotency.header", "X-Request-Id"),
            Map.entry("hotkey.idempotency.scope-headers", "Authorization, X-Tenant"),
            Map.entry("hotkey.idempotency.require-key", "true"),
            Map.entry("hotkey.idempotency.store", "redis"),
            Map.entry("hotkey.idempotency.redis.uri", "redis://cache:6380/2"),
            Map.entry("hotkey.idempotency.scope-cookies", "sid"),
            Map.entry("hotkey.idempotency.dedupe-routes", "POST /checkout"),
            Map.entry("hotkey.idempotency.dedupe-window", "2s"),
            Map.entry("hotkey.idempotency.token-endpoint", "POST /idempotency-tokens/"),
            Map.entry("hotkey.idempotency.token-routes", "POST /payments/**"),
            Map.entry("hotkey.idempotency.token-ttl", "1h"),
            Map.entry("hotkey.idempotency.redis.timeout", "250ms"),
            Map.entry("hotkey.idempotency.redis.trust-store", "/etc/redis/ca.pem"),
            Map.entry("hotkey.idempotency.ttl", "1d"),
            Map.entry("hotkey.idempotency.lease", "5s"),
            Map.entry("hotkey.idempotency.max-body", "512KB"),
            Map.entry("hotkey.idempotency.on-store-failure", "allow"),
            Map.entry("hotkey.debug.fail-every", "3"),
            Map.entry("hotkey.debug.fail-weaving", "io.lettuce.core.protocol.CommandHandler"));
    HotkeyConfig c = HotkeyConfig.load(null, sys, Map.of());
    assertFalse(c.enabled());
    assertTrue(c.failFast());
    assertEquals(Duration.ofMillis(500), c.detectWindow());
    assertEquals(20L, c.detectThreshold());
    assertEquals(10000, c.detectTopK());
    assertEquals(Duration.ZERO, c.detectCoolDown());
    assertEquals(OptionalInt.of(64), c.detectSampling());
    assertFalse(c.cacheEnabled());
    assertEquals(Duration.ofMinutes(2), c.cacheTtl());
    assertEquals(1L << 30, c.cacheMaxBytes());
    assertEquals(1L << 30, c.cacheMaxEntryBytes());
    assertTrue(c.cacheKeyFilter().accepts("user:1"));
    assertFalse(c.cacheKeyFilter().accepts("user:1:session"));
    assertFalse(c.cacheKeyFilter().accepts("order:1"));
    assertEquals(Duration.ZERO, c.reportInterval());
    assertEquals("POST /orders/**, PUT /payments/*", c.idempotencyRoutes().toString());
    assertEquals("X-Request-Id", c.idempotencyHeader());
    assertEquals(List.of("Authorization", "X-Tenant"), c.idempotencyScopeHeaders());
    assertTrue(c.idempotencyRequireKey());
    assertEquals(IdempotencyStore.REDIS, c.idempotencyStore());
    assertEquals(Optional.of(URI.create("redis://cache:6380/2")), c.idempotencyRedisUri());
    assertEquals(Duration.ofDays(1), c.idempotencyTtl());
    assertEquals(Duration.ofSeconds(5), c.idempotencyLease());
    assertEquals(512L << 10, c.idempotencyMaxBody());
    assertEquals(Optional.of("io.lettuce.core.protocol.CommandHandler"), c.debugFailWeaving());
    assertEquals(StoreFailurePolicy.ALLOW, c.idempotencyOnStoreFailure());
    assertEquals(List.of("sid"), c.idempotencyScopeCookies());
    assertEquals("POST /checkout", c.idempotencyDedupeRoutes().toString());
    assertEquals(Duration.ofSeconds(2), c.idempotencyDedupeWindow());
    assertEquals("POST /idempotency-tokens", c.idempotencyTokenEndpoint().get().toString());
    assertEquals("/idempotency-tokens", c.idempotencyTokenEndpoint().get().path());
    assertEquals("POST /payments/**", c.idempotencyTokenRoutes().toString());
    assertEquals(Duration.ofHours(1), c.idempotencyTokenTtl());
    assertEquals(Duration.ofMillis(250), c.idempotencyRedisTimeout());
    assertEquals(Optional.of(Path.of("/etc/redis/ca.pem")), c.idempotencyRedisTrustStore());
    assertEquals(3, c.debugFailEvery());
  }

  @Test
  void systemPropertyBeatsEnvironmentBeatsFileBeatsDefault() throws Exception {
    Path f =
        file(
            "hotkey.detect.top-k=1",
            "hotkey.detect.threshold=2",
            "hotkey.detect.window=3s",
            "hotkey.cache.ttl=4s");
    Map<String, String> env = Map.of("HOTKEY_DETECT_TOP_K", "10", "HOTKEY_DETECT_THRESHOLD", "20");
    Map<String, String> sys = Map.of("hotkey.detect.top-k", "100");

    HotkeyConfig c = HotkeyConfig.load("config=" + f, sys, env);

    assertEquals(100, c.detectTopK());
    assertEquals(20L, c.detectThreshold());
    assertEquals(Duration.ofSeconds(3), c.detectWindow());
    assertEquals(Duration.ofSeconds(4), c.cacheTtl());
    assertEquals(Duration.ofSeconds(10), c.detectCoolDown());
    assertEquals(Optional.of(f), c.configFile());
  }

  @Test
  void agentArgumentPairsBeatTheFileButNotTheEnvironment() throws Exception {
    Path f = file("hotkey.detect.top-k=1", "hotkey.detect.threshold=2");
    HotkeyConfig c =
        HotkeyConfig.load(
            "config=" + f + ",hotkey.detect.top-k=7,hotkey.detect.threshold=8",
            Map.of(),
            Map.of("HOTKEY_DETECT_THRESHOLD", "9"));
    assertEquals(7, c.detectTopK());
    assertEquals(9L, c.detectThreshold());
  }

  @Test
  void agentArgumentListValuesMayContainCommas() throws Exception {
    HotkeyConfig c =
        HotkeyConfig.load(
            "hotkey.idempotency.routes=POST /a/**,PUT /b/*,hotkey.cache.include=a*,b*",
            Map.of(),
            Map.of());
    assertEquals("POST /a/**, PUT /b/*", c.idempotencyRoutes().toString());
    assertEquals("[a*, b*]", c.cacheInclude().toString());
  }

  @Test
  void strayCommasInAgentArgumentsAreIgnored() throws Exception {
    Path f = file("hotkey.detect.top-k=5");
    HotkeyConfig c = HotkeyConfig.load(",config=" + f + ",", Map.of(), Map.of());
    assertEquals(Optional.of(f), c.configFile());
    assertEquals(5, c.detectTopK());
  }

  @Test
  void malformedAgentArgumentsAreAnError() {
    assertContainsAll(
        errorOf("debug,hotkey.enabled=true", Map.of(), Map.of()),
        "agent argument \"debug\" is not a key=value pair; expected comma-separated key=value pairs");
  }

  @Test
  void configFileMayBeNamedBySystemPropertyOrEnvironment() throws Exception {
    Path f = file("hotkey.detect.top-k=5");
    assertEquals(
        5, HotkeyConfig.load(null, Map.of("hotkey.config", f.toString()), Map.of()).detectTopK());
    assertEquals(
        5, HotkeyConfig.load(null, Map.of(), Map.of("HOTKEY_CONFIG", f.toString())).detectTopK());
    assertEquals(5, HotkeyConfig.load("hotkey.config=" + f, Map.of(), Map.of()).detectTopK());
  }

  @Test
  void systemPropertyChoosesTheFileOverTheAgentArgument() throws Exception {
    Path chosen = Files.write(dir.resolve("chosen.properties"), List.of("hotkey.detect.top-k=5"));
    Path ignored = Files.write(dir.resolve("ignored.properties"), List.of("hotkey.detect.top-k=6"));
    HotkeyConfig c =
        HotkeyConfig.load(
            "config=" + ignored, Map.of("hotkey.config", chosen.toString()), Map.of());
    assertEquals(5, c.detectTopK());
  }

  @Test
  void missingFileIsAnErrorNamingThePath() {
    Path missing = dir.resolve("nope.properties");
    assertContainsAll(
        errorOf("config=" + missing, Map.of(), Map.of()),
        "hotkey.config: \"" + missing + "\" (from agent argument) cannot be read",
        "expected the path of a readable .properties file");
  }

  @Test
  void errorNamesKeyValueSourceAndExpectedForm() throws Exception {
    Path f = file("hotkey.detect.window=5 seconds");
    assertEquals(
        "hotkey.detect.window: \"5 seconds\" (from file "
            + f
            + ") is not a duration; "
            + "expected a number followed by ms, s, m, h or d, e.g. 250ms or 5s",
        errorOf("config=" + f, Map.of(), Map.of()));
  }

  @Test
  void errorNamesTheEnvironmentVariable() {
    assertContainsAll(
        errorOf(null, Map.of(), Map.of("HOTKEY_DETECT_WINDOW", "soon")),
        "hotkey.detect.window",
        "\"soon\"",
        "(from environment variable HOTKEY_DETECT_WINDOW)",
        "expected a number followed by ms");
  }

  @Test
  void samplingIsAutoOrAPowerOfTwo() throws Exception {
    assertEquals(
        OptionalInt.empty(),
        HotkeyConfig.load(null, Map.of("hotkey.detect.sampling", " Auto "), Map.of())
            .detectSampling());
    assertEquals(
        OptionalInt.of(1),
        HotkeyConfig.load(null, Map.of("hotkey.detect.sampling", "1"), Map.of()).detectSampling());
    assertEquals(
        OptionalInt.of(65536),
        HotkeyConfig.load(null, Map.of("hotkey.detect.sampling", "65536"), Map.of())
            .detectSampling());
    assertContainsAll(
        errorOf(null, Map.of("hotkey.detect.sampling", "12"), Map.of()),
        "hotkey.detect.sampling: \"12\" (from system property) is not a power of two; "
            + "expected auto, or a power of two from 1 to 65536 (one access in that many is counted)");
  }

  @Test
  void errorNamesTheSystemProperty() {
    assertContainsAll(
        errorOf(null, Map.of("hotkey.detect.top-k", "0"), Map.of()),
        "hotkey.detect.top-k: \"0\" (from system property) is out of range; expected a whole number from 1 to 10000");
  }

  @Test
  void allErrorsAreReportedTogetherOnePerLine() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                HotkeyConfig.load(
                    null,
                    Map.of(
                        "hotkey.enabled", "yes",
                        "hotkey.cache.max-bytes", "lots",
                        "hotkey.idempotency.store", "mongo"),
                    Map.of()));
    assertEquals(3, e.errors().size());
    assertEquals(String.join("\n", e.errors()), e.getMessage());
    assertContainsAll(
        e.getMessage(),
        "hotkey.enabled: \"yes\" (from system property) is not a boolean; expected true or false",
        "hotkey.cache.max-bytes: \"lots\" (from system property) is not a size; expected",
        "hotkey.idempotency.store: \"mongo\" (from system property) is not one of the choices; expected memory or redis");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "hotkey.detect.threshold=0",
        "hotkey.detect.threshold=many",
        "hotkey.detect.top-k=10001",
        "hotkey.detect.window=0",
        "hotkey.detect.sampling=0",
        "hotkey.detect.sampling=3",
        "hotkey.detect.sampling=131072",
        "hotkey.detect.sampling=sometimes",
        "hotkey.cache.ttl=-1s",
        "hotkey.cache.max-bytes=0",
        "hotkey.cache.include=",
        "hotkey.cache.exclude=[abc",
        "hotkey.idempotency.routes=POST orders",
        "hotkey.idempotency.header=Idempotency Key",
        "hotkey.idempotency.scope-headers=Authorization,,Cookie",
        "hotkey.idempotency.on-store-failure=ignore",
        "hotkey.idempotency.redis.uri=http://cache:6379",
        "hotkey.idempotency.redis.uri=redis://cache",
        "hotkey.idempotency.redis.uri=redis://cache:6379/db",
        "hotkey.idempotency.redis.uri=redis://cache:6379?protocol=4",
        "hotkey.idempotency.redis.timeout=0",
        "hotkey.idempotency.scope-cookies=JSESSIONID,,SESSION",
        "hotkey.idempotency.scope-cookies=a=b",
        "hotkey.idempotency.dedupe-routes=POST checkout",
        "hotkey.idempotency.dedupe-window=0",
        "hotkey.idempotency.token-endpoint=POST /tokens/*",
        "hotkey.idempotency.token-endpoint=* /tokens",
        "hotkey.idempotency.token-ttl=0",
        "hotkey.idempotency.lease=0",
        "hotkey.debug.fail-every=-1",
        "hotkey.debug.fail-weaving=CommandHandler",
        "hotkey.debug.fail-weaving=io.lettuce..CommandHandler",
        "hotkey.enabled=1",
      })
  void rejectsBadValues(String line) throws IOException {
    String key = line.substring(0, line.indexOf('='));
    Path f = file(line);
    assertContainsAll(
        errorOf("config=" + f, Map.of(), Map.of()),
        key + ": \"",
        "(from file " + f + ")",
        "expected");
  }

  @Test
  void redisStoreRequiresAUri() {
    assertEquals(
        "hotkey.idempotency.redis.uri: \"\" (from default) is required because "
            + "hotkey.idempotency.store=redis (from environment variable HOTKEY_IDEMPOTENCY_STORE); "
            + "expected redis://[user:password@]host:port[/db][?protocol=2|3] (rediss:// for TLS),"
            + " e.g. redis://localhost:6379/0",
        errorOf(null, Map.of(), Map.of("HOTKEY_IDEMPOTENCY_STORE", "redis")));
  }

  @Test
  void tlsAndProtocolAreAcceptedInTheRedisUri() throws Exception {
    HotkeyConfig c =
        HotkeyConfig.load(
            null,
            Map.of("hotkey.idempotency.redis.uri", "rediss://idem:pw@cache:6380/1?protocol=3"),
            Map.of());
    assertEquals(
        Optional.of(URI.create("rediss://idem:pw@cache:6380/1?protocol=3")),
        c.idempotencyRedisUri());
  }

  @Test
  void tokenRoutesRequireATokenEndpoint() {
    assertEquals(
        "hotkey.idempotency.token-routes: \"POST /payments\" (from system property) needs "
            + "hotkey.idempotency.token-endpoint, where clients get their tokens; expected e.g. "
            + "hotkey.idempotency.token-endpoint=POST /idempotency-tokens",
        errorOf(null, Map.of("hotkey.idempotency.token-routes", "POST /payments"), Map.of()));
  }

  @Test
  void aTokenEndpointThatAConfiguredRouteMatchesIsRefused() {
    assertEquals(
        "hotkey.idempotency.token-endpoint: \"POST /orders/tokens\" (from system property) collides"
            + " with the route POST /orders/** of hotkey.idempotency.routes: the agent answers the"
            + " token endpoint itself, so that route's handler would never run; expected a path no"
            + " configured route matches, e.g. POST /idempotency-tokens",
        errorOf(
            null,
            Map.of(
                "hotkey.idempotency.routes", "POST /orders/**",
                "hotkey.idempotency.token-endpoint", "POST /orders/tokens"),
            Map.of()));
  }

  @Test
  void malformedRedisUriIsReportedOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                HotkeyConfig.load(
                    null,
                    Map.of(
                        "hotkey.idempotency.store",
                        "redis",
                        "hotkey.idempotency.redis.uri",
                        "cache:6379"),
                    Map.of()));
    assertEquals(1, e.errors().size());
    assertContainsAll(e.getMessage(), "\"cache:6379\"", "is not a Redis URI");
  }

  @Test
  void maxEntryBytesMayNotExceedMaxBytes() {
    assertEquals(
        "hotkey.cache.max-entry-bytes: \"2MB\" (from system property) is larger than "
            + "hotkey.cache.max-bytes (1MB from system property); expected a size no larger than the whole cache",
        errorOf(
            null,
            Map.of("hotkey.cache.max-bytes", "1MB", "hotkey.cache.max-entry-bytes", "2MB"),
            Map.of()));
  }

  @Test
  void unknownKeysWarnWithTheNearestKey() throws Exception {
    Path f = file("hotkey.detect.treshold=5");
    HotkeyConfig c =
        HotkeyConfig.load(
            "config=" + f + ",hotkey.cache.tll=1s",
            Map.of("hotkey.cache.max-byte", "1MB"),
            Map.of("HOTKEY_DETECT_TOPK", "3"));
    assertEquals(
        List.of(
            "unknown key hotkey.cache.max-byte (from system property); did you mean hotkey.cache.max-bytes?",
            "unknown environment variable HOTKEY_DETECT_TOPK; did you mean HOTKEY_DETECT_TOP_K?",
            "unknown key hotkey.cache.tll (from agent argument); did you mean hotkey.cache.ttl?",
            "unknown key hotkey.detect.treshold (from file "
                + f
                + "); did you mean hotkey.detect.threshold?"),
        c.warnings());
    assertEquals(1000L, c.detectThreshold());
  }

  @Test
  void unknownKeyFarFromAnyKnownOneGetsNoSuggestion() throws Exception {
    HotkeyConfig c =
        HotkeyConfig.load(null, Map.of("hotkey.completely.different.thing", "x"), Map.of());
    assertEquals(
        List.of("unknown key hotkey.completely.different.thing (from system property)"),
        c.warnings());
  }

  @Test
  void foreignSystemPropertiesAndEnvironmentVariablesAreIgnored() throws Exception {
    HotkeyConfig c =
        HotkeyConfig.load(
            null,
            Map.of("java.version", "17", "hotkeyx", "1"),
            Map.of("PATH", "/bin", "HOTKEYS", "x"));
    assertEquals(List.of(), c.warnings());
  }

  @Test
  void describeListsEveryKeyWithValueAndSource() throws Exception {
    Path f = file("hotkey.cache.ttl=7s");
    String description =
        HotkeyConfig.load(
                "config=" + f,
                Map.of("hotkey.detect.top-k", "50"),
                Map.of("HOTKEY_DETECT_WINDOW", "2s"))
            .describe();
    List<String> lines = description.lines().collect(Collectors.toList());
    assertEquals(HotkeyConfig.knownKeys().size(), lines.size());
    assertContainsAll(
        description,
        "hotkey.detect.top-k = 50 (system property)\n",
        "hotkey.detect.window = 2s (environment variable HOTKEY_DETECT_WINDOW)\n",
        "hotkey.cache.ttl = 7s (file " + f + ")\n",
        "hotkey.config = " + f + " (agent argument)\n",
        "hotkey.detect.threshold = 1000 (default)\n",
        "hotkey.cache.exclude = \"\" (default)\n");
  }

  @Test
  void describeHidesTheRedisPassword() throws Exception {
    String description =
        HotkeyConfig.load(
                null,
                Map.of(
                    "hotkey.idempotency.store",
                    "redis",
                    "hotkey.idempotency.redis.uri",
                    "redis://app:s3cret@cache:6379/0"),
                Map.of())
            .describe();
    assertContainsAll(
        description, "hotkey.idempotency.redis.uri = redis://***@cache:6379/0 (system property)");
    assertFalse(description.contains("s3cret"));
  }

  @Test
  void entriesShowEveryKeyWithItsSourceAndHideThePassword() throws Exception {
    HotkeyConfig c =
        HotkeyConfig.load(
            null,
            Map.of(
                "hotkey.idempotency.store",
                "redis",
                "hotkey.idempotency.redis.uri",
                "redis://app:s3cret@cache:6379/0"),
            Map.of("HOTKEY_HTTP_PORT", "9464"));
    Map<String, ConfigEntry> byKey =
        c.entries().stream().collect(Collectors.toMap(ConfigEntry::key, e -> e));
    assertEquals(
        HotkeyConfig.knownKeys(),
        c.entries().stream().map(ConfigEntry::key).collect(Collectors.toList()));
    assertEquals("redis://***@cache:6379/0", byKey.get("hotkey.idempotency.redis.uri").value());
    assertEquals("system property", byKey.get("hotkey.idempotency.redis.uri").source());
    assertEquals("9464", byKey.get("hotkey.http.port").value());
    assertEquals("environment variable HOTKEY_HTTP_PORT", byKey.get("hotkey.http.port").source());
    assertEquals("127.0.0.1", byKey.get("hotkey.http.host").value());
    assertEquals("default", byKey.get("hotkey.http.host").source());
  }

  @Test
  void fleetAndTrackingSettingsAreRead() throws ConfigException {
    HotkeyConfig c =
        HotkeyConfig.load(
            null,
            Map.of(
                "hotkey.detect.fleet-threshold", "5000",
                "hotkey.fleet.namespace", "shop:agent:",
                "hotkey.cache.invalidation", "ttl",
                "hotkey.redis.uri", "redis://app:pw@10.0.0.7:6380"),
            Map.of());
    assertEquals(5000L, c.detectFleetThreshold());
    assertEquals("shop:agent:", c.fleetNamespace());
    assertEquals(Invalidation.TTL, c.cacheInvalidation());
    assertEquals(URI.create("redis://app:pw@10.0.0.7:6380"), c.redisUri().orElseThrow());
    assertFalse(c.describe().contains("pw@"), c.describe());
    assertTrue(c.describe().contains("hotkey.redis.uri = redis://***@10.0.0.7:6380"), c.describe());
  }

  @Test
  void refreshAheadTakesAShareOfTheTtlOrOff() throws ConfigException {
    assertEquals(
        OptionalDouble.empty(), HotkeyConfig.load(null, Map.of(), Map.of()).cacheRefreshAhead());
    assertEquals(
        0.8,
        HotkeyConfig.load(null, Map.of("hotkey.cache.refresh-ahead", "80%"), Map.of())
            .cacheRefreshAhead()
            .getAsDouble(),
        1e-9);
    for (String bad : List.of("80", "0%", "100%", "eighty%", "-5%")) {
      assertContainsAll(
          errorOf(null, Map.of("hotkey.cache.refresh-ahead", bad), Map.of()),
          "hotkey.cache.refresh-ahead",
          "expected e.g. 80%");
    }
  }

  @Test
  void fanOutLimitTakesAShareOfTheReadsOrOffAndItsCoolDownAPositiveDuration()
      throws ConfigException {
    HotkeyConfig defaults = HotkeyConfig.load(null, Map.of(), Map.of());
    assertEquals(0.5, defaults.cacheFanOutLimit().getAsDouble(), 1e-9);
    assertEquals(Duration.ofSeconds(60), defaults.cacheFanOutCoolDown());
    HotkeyConfig set =
        HotkeyConfig.load(
            null,
            Map.of("hotkey.cache.fan-out-limit", "200%", "hotkey.cache.fan-out-cool-down", "5m"),
            Map.of());
    assertEquals(2.0, set.cacheFanOutLimit().getAsDouble(), 1e-9);
    assertEquals(Duration.ofMinutes(5), set.cacheFanOutCoolDown());
    assertEquals(
        OptionalDouble.empty(),
        HotkeyConfig.load(null, Map.of("hotkey.cache.fan-out-limit", "off"), Map.of())
            .cacheFanOutLimit());
    for (String bad : List.of("50", "0%", "1001%", "half%")) {
      assertContainsAll(
          errorOf(null, Map.of("hotkey.cache.fan-out-limit", bad), Map.of()),
          "hotkey.cache.fan-out-limit",
          "expected e.g. 50%");
    }
    assertContainsAll(
        errorOf(null, Map.of("hotkey.cache.fan-out-cool-down", "0s"), Map.of()),
        "hotkey.cache.fan-out-cool-down");
  }

  @Test
  void serveStaleTakesAPositiveDurationOrOff() throws ConfigException {
    assertEquals(
        Optional.empty(), HotkeyConfig.load(null, Map.of(), Map.of()).cacheServeStaleOnError());
    assertEquals(
        Optional.of(Duration.ofSeconds(30)),
        HotkeyConfig.load(null, Map.of("hotkey.cache.serve-stale-on-error", "30s"), Map.of())
            .cacheServeStaleOnError());
    assertEquals(
        Optional.empty(),
        HotkeyConfig.load(null, Map.of("hotkey.cache.serve-stale-on-error", "OFF"), Map.of())
            .cacheServeStaleOnError());
    for (String bad : List.of("sometimes", "0", "-5s")) {
      assertContainsAll(
          errorOf(null, Map.of("hotkey.cache.serve-stale-on-error", bad), Map.of()),
          "hotkey.cache.serve-stale-on-error");
    }
  }

  @Test
  void everyKeyIsInTheReadmesConfigurationTable() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (String key : HotkeyConfig.knownKeys()) {
      assertTrue(
          readme.contains("\n| `" + key + "` |"), () -> key + " is not in README.md's table");
    }
  }

  @Test
  void theAgentsOwnKeysAreNeverCached() throws ConfigException {
    HotkeyConfig c = HotkeyConfig.load(null, Map.of("hotkey.fleet.namespace", "ops:hk:"), Map.of());
    assertFalse(c.cacheKeyFilter().accepts("ops:hk:{fleet}:123"));
    assertTrue(c.cacheKeyFilter().accepts("ops:other"));
  }

  @Test
  void aFleetThresholdWithoutAnyRedisNamedIsAccepted() throws ConfigException {
    HotkeyConfig c =
        HotkeyConfig.load(null, Map.of("hotkey.detect.fleet-threshold", "5000"), Map.of());
    assertEquals(5000L, c.detectFleetThreshold());
    assertTrue(c.fleetRedisUri().isEmpty());
    assertTrue(c.redisUri().isEmpty());
  }

  @Test
  void theFleetsOwnRedisIsRead() throws ConfigException {
    HotkeyConfig c =
        HotkeyConfig.load(
            null, Map.of("hotkey.fleet.redis.uri", "redis://ops:pw@fleet.internal:6380"), Map.of());
    assertEquals("fleet.internal", c.fleetRedisUri().orElseThrow().getHost());
    assertEquals(6380, c.fleetRedisUri().orElseThrow().getPort());
    assertFalse(c.describe().contains("pw@"), c.describe());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "hot key:", "{tag}:", "agent*"})
  void aFleetNamespaceThatCannotPrefixKeysSafelyIsRefused(String value) {
    assertContainsAll(
        errorOf(null, Map.of("hotkey.fleet.namespace", value), Map.of()),
        "hotkey.fleet.namespace",
        "key prefix");
  }
}
