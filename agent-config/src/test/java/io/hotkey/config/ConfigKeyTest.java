package io.hotkey.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ConfigKeyTest {

  @ParameterizedTest
  @EnumSource(ConfigKey.class)
  void everyKeyIsDocumentedAndItsDefaultIsValid(ConfigKey key) {
    assertTrue(key.key().startsWith("hotkey."));
    assertFalse(key.description().isBlank());
    assertDoesNotThrow(() -> key.parse(key.defaultValue()));
  }

  @Test
  void envNamesAreUpperCaseWithUnderscoresAndUnique() {
    assertEquals("HOTKEY_DETECT_TOP_K", ConfigKey.DETECT_TOP_K.envName());
    assertEquals("HOTKEY_IDEMPOTENCY_REDIS_URI", ConfigKey.IDEMPOTENCY_REDIS_URI.envName());
    Set<String> names =
        Arrays.stream(ConfigKey.values()).map(ConfigKey::envName).collect(Collectors.toSet());
    assertEquals(ConfigKey.values().length, names.size());
  }

  @Test
  void looksUpByKeyAndByEnvName() {
    assertEquals(Optional.of(ConfigKey.DETECT_TOP_K), ConfigKey.byKey("hotkey.detect.top-k"));
    assertEquals(Optional.of(ConfigKey.DETECT_TOP_K), ConfigKey.byEnvName("HOTKEY_DETECT_TOP_K"));
    assertEquals(Optional.empty(), ConfigKey.byKey("hotkey.detect.top_k"));
    assertEquals(Optional.empty(), ConfigKey.byEnvName("HOTKEY_NOPE"));
  }

  @Test
  void levenshteinCountsEdits() {
    assertEquals(0, NearestKey.levenshtein("abc", "abc"));
    assertEquals(1, NearestKey.levenshtein("treshold", "threshold"));
    assertEquals(3, NearestKey.levenshtein("kitten", "sitting"));
    assertEquals(3, NearestKey.levenshtein("", "abc"));
  }
}
