package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a reload of the properties file changes, and what the agent then runs with. */
class ConfigChangesTest {
  @TempDir Path dir;

  private HotkeyConfig fromFile(String... lines) throws Exception {
    Path file = dir.resolve("hotkey.properties");
    Files.write(file, List.of(lines));
    return HotkeyConfig.load("config=" + file, Map.of(), Map.of());
  }

  private static List<String> shown(List<ConfigChange> changes) {
    return changes.stream().map(ConfigChange::toString).collect(Collectors.toList());
  }

  @Test
  void anUnchangedFileChangesNothing() throws Exception {
    HotkeyConfig before = fromFile("hotkey.detect.threshold=200");
    HotkeyConfig after = fromFile("hotkey.detect.threshold = 200 ", "# a comment");
    assertEquals(List.of(), ConfigChanges.between(before, after));
  }

  @Test
  void changesAreListedInKeyOrderAsTheLogShowsThem() throws Exception {
    HotkeyConfig before = fromFile("hotkey.detect.threshold=200", "hotkey.detect.window=1s");
    HotkeyConfig after =
        fromFile(
            "hotkey.cache.exclude=user:*",
            "hotkey.detect.window=2s",
            "hotkey.detect.threshold=5000");
    assertEquals(
        List.of(
            "hotkey.detect.window: 1s -> 2s",
            "hotkey.detect.threshold: 200 -> 5000",
            "hotkey.cache.exclude: \"\" -> user:*"),
        shown(ConfigChanges.between(before, after)));
  }

  @Test
  void aKeyRemovedFromTheFileGoesBackToItsDefault() throws Exception {
    HotkeyConfig before = fromFile("hotkey.detect.top-k=7");
    HotkeyConfig after = fromFile();
    assertEquals(
        List.of("hotkey.detect.top-k: 7 -> 100"), shown(ConfigChanges.between(before, after)));
  }

  @Test
  void aHigherSourceStillWinsSoAFileEditUnderItChangesNothing() throws Exception {
    Path file = dir.resolve("hotkey.properties");
    Map<String, String> sys = Map.of("hotkey.detect.threshold", "300");
    Files.write(file, List.of("hotkey.detect.threshold=200"));
    HotkeyConfig before = HotkeyConfig.load("config=" + file, sys, Map.of());
    Files.write(file, List.of("hotkey.detect.threshold=9000"));
    HotkeyConfig after = HotkeyConfig.load("config=" + file, sys, Map.of());
    assertEquals(List.of(), ConfigChanges.between(before, after));
  }

  @Test
  void passwordsStayHiddenInTheDiff() throws Exception {
    HotkeyConfig before = fromFile("hotkey.redis.uri=redis://app:secret1@localhost:6379");
    HotkeyConfig after = fromFile("hotkey.redis.uri=redis://app:secret2@localhost:6379");
    List<String> diff = shown(ConfigChanges.between(before, after));
    assertEquals(1, diff.size(), diff::toString);
    assertFalse(diff.get(0).contains("secret"), diff::toString);
  }

  @Test
  void anInvalidEditIsRejectedWithThePreciseErrorAsAtStart() throws Exception {
    Path file = dir.resolve("hotkey.properties");
    Files.write(file, List.of("hotkey.detect.threshold=lots", "hotkey.cache.ttl=-1s"));
    String message =
        assertThrows(
                ConfigException.class,
                () -> HotkeyConfig.load("config=" + file, Map.of(), Map.of()))
            .getMessage();
    assertTrue(
        message.contains("hotkey.detect.threshold: \"lots\" (from file " + file + ")"), message);
    assertTrue(message.contains("hotkey.cache.ttl: \"-1s\" (from file " + file + ")"), message);
  }

  @Test
  void liveKeysAreTheOnesTheAgentCanApplyWithoutARestart() {
    assertEquals(
        Set.of(
            ConfigKey.DETECT_THRESHOLD,
            ConfigKey.DETECT_WRITE_THRESHOLD,
            ConfigKey.DETECT_FLEET_THRESHOLD,
            ConfigKey.DETECT_TOP_K,
            ConfigKey.DETECT_COOL_DOWN,
            ConfigKey.CACHE_TTL,
            ConfigKey.CACHE_MAX_BYTES,
            ConfigKey.CACHE_INCLUDE,
            ConfigKey.CACHE_EXCLUDE,
            ConfigKey.REPORT_INTERVAL,
            ConfigKey.IDEMPOTENCY_ROUTES,
            ConfigKey.IDEMPOTENCY_REQUIRE_KEY),
        ConfigChanges.LIVE);
    for (ConfigKey fixed :
        List.of(
            ConfigKey.ENABLED,
            ConfigKey.DETECT_WINDOW,
            ConfigKey.HTTP_PORT,
            ConfigKey.REPORT_REDACT,
            ConfigKey.CACHE_ENABLED)) {
      assertFalse(ConfigChanges.LIVE.contains(fixed), fixed::key);
    }
  }

  @Test
  void mergeTakesTheAppliedKeysFromTheReloadAndKeepsTheRest() throws Exception {
    HotkeyConfig running = fromFile("hotkey.detect.threshold=200", "hotkey.detect.window=1s");
    HotkeyConfig loaded =
        fromFile(
            "hotkey.detect.threshold=5000",
            "hotkey.detect.window=2s",
            "hotkey.cache.exclude=user:*");
    HotkeyConfig next =
        ConfigChanges.merge(
            running, loaded, Set.of(ConfigKey.DETECT_THRESHOLD, ConfigKey.CACHE_EXCLUDE));
    assertEquals(5000, next.detectThreshold());
    assertEquals(Duration.ofSeconds(1), next.detectWindow());
    assertFalse(next.cacheKeyFilter().accepts("user:1"));
    assertTrue(next.cacheKeyFilter().accepts("product:1"));
    // the agent's own keys stay excluded whatever the reload says
    assertFalse(next.cacheKeyFilter().accepts("hotkey:{fleet}:1"));
    // what still differs from the file is the key that was not applied
    assertEquals(
        List.of("hotkey.detect.window: 1s -> 2s"), shown(ConfigChanges.between(next, loaded)));
  }

  @Test
  void theWriteThresholdIsTheThresholdUnlessSet() throws Exception {
    assertEquals(200, fromFile("hotkey.detect.threshold=200").detectWriteThreshold());
    assertEquals(
        5000,
        fromFile("hotkey.detect.threshold=200", "hotkey.detect.write-threshold=5000")
            .detectWriteThreshold());
  }

  @Test
  void redactionIsReadWithItsDefaultsAndBounds() throws Exception {
    HotkeyConfig defaults = HotkeyConfig.defaults();
    assertEquals(Redaction.NONE, defaults.reportRedact());
    assertEquals(0, defaults.reportRedactPrefix());
    HotkeyConfig hashed = fromFile("hotkey.report.redact=hash", "hotkey.report.redact-prefix=5");
    assertEquals(Redaction.HASH, hashed.reportRedact());
    assertEquals(5, hashed.reportRedactPrefix());
    assertThrows(ConfigException.class, () -> fromFile("hotkey.report.redact=sha1"));
    assertThrows(ConfigException.class, () -> fromFile("hotkey.report.redact-prefix=-1"));
  }
}
