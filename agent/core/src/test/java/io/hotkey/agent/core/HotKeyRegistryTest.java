package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Write-hot keys, a reloaded cache filter and each hot key's read counters, as the registry
 * publishes the hot keys.
 */
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
  void everyKeyHotServesKeysNeverSeenAndTracksEveryKeyButWriteHotOnes() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 200, true);
    List<List<byte[]>> tracked = new ArrayList<>();
    registry.addServableListener(tracked::add);
    assertTrue(servable(registry, "never:seen"));
    assertEquals(1, tracked.size());
    assertEquals(List.of(""), names(tracked.get(0)), "the empty prefix covers every key");

    registry.onPromoted(rate("counter:1", 50, 250));
    assertFalse(servable(registry, "counter:1"), "write-hot all the same");
    assertTrue(servable(registry, "other"));

    HotKeyRegistry cacheOff = new HotKeyRegistry(false, EVERY_KEY, 200, true);
    assertFalse(servable(cacheOff, "never:seen"), "nothing is served with the cache off");
  }

  private static List<String> names(List<byte[]> keys) {
    List<String> names = new ArrayList<>();
    for (byte[] key : keys) {
      names.add(new String(key, StandardCharsets.UTF_8));
    }
    return names;
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

  private static HotKeyTable.Entry find(HotKeyRegistry registry, String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return registry.table().find(bytes, KeyHashes.hash(bytes));
  }

  @Test
  void aHotKeyKeepsItsReadCountersWhileHotAndStartsAnewWhenPromotedAgain() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 200);
    registry.onPromoted(rate("stock:9", 300, 100));
    HotKeyReads reads = registry.reads("stock:9");
    assertNotNull(reads);
    assertSame(reads, find(registry, "stock:9").reads, "reads count into what the report shows");
    registry.onRates(List.of(rate("stock:9", 300, 400)));
    registry.reconfigure(EVERY_KEY, 1000);
    assertSame(reads, registry.reads("stock:9"), "write-hot and a reload keep the counts");
    registry.onDemoted(rate("stock:9", 0, 0));
    assertNull(registry.reads("stock:9"));
    assertNull(find(registry, "stock:9"));
    registry.onPromoted(rate("stock:9", 300, 10));
    assertNotSame(reads, registry.reads("stock:9"), "counts are since the key became hot");
  }

  @Test
  void everyHotKeyIsLookedUpAndOnlyTheServableOnesMayBeServed() {
    HotKeyRegistry registry =
        new HotKeyRegistry(
            true, new KeyFilter(List.of(Glob.parse("*")), List.of(Glob.parse("user:*"))), 200);
    registry.onPromoted(rate("user:1", 900, 0));
    registry.onPromoted(rate("counter:1", 50, 250));
    registry.onPromoted(rate("product:1", 900, 0));
    assertFalse(find(registry, "user:1").servable, "excluded");
    assertFalse(find(registry, "counter:1").servable, "write-hot");
    assertTrue(find(registry, "product:1").servable);
    assertNull(find(registry, "cold:1"));
  }

  @Test
  void aTruncatedHotKeyIsMatchedByHashLengthAndPrefixAndNeverServable() {
    byte[] full = ("long:" + "x".repeat(100)).getBytes(StandardCharsets.UTF_8);
    byte[] prefix = Arrays.copyOf(full, 64);
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 1000);
    registry.onPromoted(new KeyRate(prefix, full.length, KeyHashes.hash(full), 900, 0, 900));
    HotKeyTable.Entry entry = registry.table().find(full, KeyHashes.hash(full));
    assertNotNull(entry);
    assertFalse(entry.servable);
    byte[] longer = ("long:" + "x".repeat(101)).getBytes(StandardCharsets.UTF_8);
    assertNull(registry.table().find(longer, KeyHashes.hash(longer)));
  }

  @Test
  void aFleetHotKeyCountsItsReadsTooAndSharesThemWithItsLocalPromotion() {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 1000);
    byte[] key = "product:7".getBytes(StandardCharsets.UTF_8);
    registry.onFleetHotKeys(List.of(new HotKeyRegistry.FleetHotKey(key, 5000, 1)));
    HotKeyReads reads = registry.reads("product:7");
    assertNotNull(reads);
    assertTrue(find(registry, "product:7").servable);
    registry.onPromoted(rate("product:7", 900, 0));
    assertSame(reads, registry.reads("product:7"), "one key, one count");
    registry.onFleetHotKeys(List.of());
    assertSame(reads, registry.reads("product:7"), "still hot here");
  }

  @Test
  void withTheCacheOffNoHotKeyIsLookedUpNorCounted() {
    HotKeyRegistry registry = new HotKeyRegistry(false, EVERY_KEY, 1000);
    registry.onPromoted(rate("product:1", 900, 0));
    assertTrue(registry.table().isEmpty(), "cold reads pay one branch, as before");
    assertNull(registry.reads("product:1"));
  }
}
