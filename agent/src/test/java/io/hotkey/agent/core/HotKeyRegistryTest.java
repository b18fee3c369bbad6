package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Write-hot keys and a reloaded cache filter, as the registry publishes the servable keys. */
class HotKeyRegistryTest {
  private static final KeyFilter EVERY_KEY = new KeyFilter(List.of(Glob.parse("*")), List.of());

  private static KeyRate rate(String key, long reads, long writes) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return new KeyRate(bytes, bytes.length, KeyHashes.hash(bytes), reads, writes, reads + writes);
  }

  private static boolean servable(HotKeyRegistry registry, String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return registry.isServable(bytes, KeyHashes.hash(bytes));
  }

  @Test
  void aKeyWrittenAtTheThresholdIsWriteHotFromItsPromotionAndNeverServable() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 200);
    registry.onPromoted(rate("counter:1", 50, 250));
    registry.onPromoted(rate("product:1", 900, 100));
    assertEquals(List.of("counter:1"), registry.writeHotKeyNames());
    assertFalse(servable(registry, "counter:1"));
    assertTrue(servable(registry, "product:1"));
  }

  @Test
  void aHotKeyBecomesWriteHotWhenItsWritesGrowAndStaysSoUntilDemoted() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 200);
    registry.onPromoted(rate("stock:9", 300, 100));
    assertTrue(servable(registry, "stock:9"));
    registry.onRates(List.of(rate("stock:9", 300, 400)));
    assertEquals(List.of("stock:9"), registry.writeHotKeyNames());
    assertFalse(servable(registry, "stock:9"));
    registry.onRates(List.of(rate("stock:9", 300, 10)));
    assertFalse(servable(registry, "stock:9"), "write-hot until demoted");
    registry.onDemoted(rate("stock:9", 0, 0));
    assertEquals(List.of(), registry.writeHotKeyNames());
    registry.onPromoted(rate("stock:9", 300, 10));
    assertTrue(servable(registry, "stock:9"));
  }

  @Test
  void aReloadedExcludeReturnsTheServedKeysItNowRefuses() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 1000);
    registry.onPromoted(rate("user:1", 900, 0));
    registry.onPromoted(rate("product:1", 900, 0));
    List<byte[]> refused =
        registry.reconfigure(
            new KeyFilter(List.of(Glob.parse("*")), List.of(Glob.parse("user:*"))), 1000);
    assertEquals(1, refused.size());
    assertEquals("user:1", new String(refused.get(0), StandardCharsets.UTF_8));
    assertFalse(servable(registry, "user:1"));
    assertTrue(servable(registry, "product:1"));
    assertEquals(List.of("user:1", "product:1"), registry.hotKeyNames(), "still hot, reported");
  }
}
