package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.HotKeyReads;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.detect.KeyRate;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The invalidation fan-out guard as the registry applies it: a served key whose tracking pushes
 * outweigh half its reads over a window stops being served and tracked for the cool-down, twice as
 * long each time while it stays hot. Time is the clock the test moves, handed to each check as the
 * detector tick does; the cool-down's jitter is the test's too.
 */
class FanOutGuardTest {
  private static final KeyFilter EVERY_KEY = new KeyFilter(List.of(Glob.parse("*")), List.of());
  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  private long now = 1_000 * SECOND;
  private final List<String> untracked = new ArrayList<>();
  private final List<List<String>> published = new ArrayList<>();

  private double jitter;

  private HotKeyRegistry registry(double limit) {
    HotKeyRegistry registry = new HotKeyRegistry(true, EVERY_KEY, 1_000_000);
    registry.guardFanOut(
        new FanOutGuard(limit, Duration.ofSeconds(1), Duration.ofSeconds(30), () -> jitter));
    registry.addFanOutListener(key -> untracked.add(new String(key, StandardCharsets.UTF_8)));
    registry.addServableListener(keys -> published.add(names(keys)));
    return registry;
  }

  private static List<String> names(List<byte[]> keys) {
    List<String> names = new ArrayList<>();
    for (byte[] key : keys) {
      names.add(new String(key, StandardCharsets.UTF_8));
    }
    return names;
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private static KeyRate rate(String key, long reads) {
    byte[] bytes = bytes(key);
    return new KeyRate(bytes, bytes.length, KeyHashes.hash(bytes), reads, 0, reads);
  }

  private static boolean servable(HotKeyRegistry registry, String key) {
    return registry.isServable(bytes(key), KeyHashes.hash(bytes(key)));
  }

  /** One window of a served key: its reads here and the pushes tracking received for it. */
  private void window(HotKeyRegistry registry, String key, int reads, int invalidations) {
    span(registry, key, reads, invalidations, SECOND);
  }

  private void span(HotKeyRegistry registry, String key, int reads, int invalidations, long nanos) {
    HotKeyReads counts = registry.reads(key);
    for (int n = 0; n < reads; n++) {
      HotKeyReads.count(new HotKeyReads[] {counts}, 1, n % 2 == 0);
    }
    for (int n = 0; n < invalidations; n++) {
      registry.countInvalidation(bytes(key));
    }
    now += nanos;
    registry.checkFanOut(now);
  }

  @Test
  void aKeyPushedMoreThanHalfAsOftenAsItIsReadStopsBeingServedAndTracked() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.onPromoted(rate("product:1", 1000));
    registry.checkFanOut(now); // the windows start
    window(registry, "product:1", 1000, 3);
    window(registry, "stock:7", 1000, 500);
    assertTrue(servable(registry, "stock:7"), "at half its reads it is still worth serving");
    assertEquals(List.of(), untracked);

    window(registry, "stock:7", 1000, 501);
    assertFalse(servable(registry, "stock:7"));
    assertTrue(servable(registry, "product:1"), "a key written rarely stays served");
    assertEquals(List.of("stock:7"), untracked, "its entries dropped and its tracking ended");
    assertEquals(List.of("product:1"), published.get(published.size() - 1));
    assertEquals(1, registry.fanOutDemotions());
    assertEquals(List.of("stock:7", "product:1"), registry.hotKeyNames(), "still hot, reported");
  }

  @Test
  void aDemotedKeyIsServedAgainAfterTheCoolDownAndDemotedAgainForTwiceAsLongIfTheWritesGoOn() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    window(registry, "stock:7", 100, 100);
    assertFalse(servable(registry, "stock:7"));

    // while demoted nothing is pushed for it (untracked), and reads reach Redis uncounted
    now += Duration.ofSeconds(29).toNanos();
    registry.checkFanOut(now);
    assertFalse(servable(registry, "stock:7"), "within the cool-down");
    now += SECOND;
    registry.checkFanOut(now);
    assertTrue(servable(registry, "stock:7"), "the cool-down is over: tried again");

    window(registry, "stock:7", 100, 80);
    assertFalse(servable(registry, "stock:7"), "its writes went on: demoted within a window");
    assertEquals(2, registry.fanOutDemotions());
    assertEquals(List.of("stock:7", "stock:7"), untracked);
    now += Duration.ofSeconds(59).toNanos();
    registry.checkFanOut(now);
    assertFalse(servable(registry, "stock:7"), "the second cool-down is twice as long");
    now += SECOND;
    registry.checkFanOut(now);
    assertTrue(servable(registry, "stock:7"));

    registry.onDemoted(rate("stock:7", 0));
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    window(registry, "stock:7", 100, 80);
    now += Duration.ofSeconds(30).toNanos();
    registry.checkFanOut(now);
    assertTrue(servable(registry, "stock:7"), "cooled and hot again: the shortest cool-down");
  }

  @Test
  void eachCoolDownIsLongerByUpToHalfItsJitter() {
    jitter = 0.99;
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    window(registry, "stock:7", 100, 100);
    now += Duration.ofSeconds(44).toNanos();
    registry.checkFanOut(now);
    assertFalse(servable(registry, "stock:7"), "30 s and 0.99 of half of it");
    now += SECOND;
    registry.checkFanOut(now);
    assertTrue(servable(registry, "stock:7"));
  }

  @Test
  void aKeyThatCoolsAndIsPromotedAgainWithinTheCoolDownStaysUnserved() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    window(registry, "stock:7", 10, 10);
    registry.onDemoted(rate("stock:7", 0));
    registry.onPromoted(rate("stock:7", 1000));
    assertFalse(servable(registry, "stock:7"));
  }

  @Test
  void aSingleWriteInAWindowNeverDemotesAKeyHoweverFewItsReads() {
    HotKeyRegistry registry = registry(0.5);
    registry.onFleetHotKeys(List.of(new HotKeyRegistry.FleetHotKey(bytes("price:3"), 20_000)));
    registry.checkFanOut(now);
    window(registry, "price:3", 0, 1);
    window(registry, "price:3", 1, 1);
    assertTrue(servable(registry, "price:3"));
    window(registry, "price:3", 2, 2);
    assertFalse(servable(registry, "price:3"), "a fleet-hot key read twice, pushed twice");
  }

  @Test
  void aVerdictComesATenthOfAWindowInFromTheReadsAndPushesSinceTheWindowBegan() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    span(registry, "stock:7", 50, 40, SECOND / 20);
    assertTrue(servable(registry, "stock:7"), "no verdict before a tenth of the window");
    span(registry, "stock:7", 50, 20, SECOND / 20);
    assertFalse(servable(registry, "stock:7"), "60 pushes for 100 reads, a tenth of a window in");
  }

  @Test
  void beforeTheWindowEndsAFewPushesAreNoVerdict() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    span(registry, "stock:7", 7, 4, SECOND / 4);
    assertTrue(servable(registry, "stock:7"), "4 pushes for 7 reads, readers starved a moment");
    span(registry, "stock:7", 700, 100, SECOND * 3 / 4);
    assertTrue(servable(registry, "stock:7"), "104 pushes for 707 reads over the window");
  }

  @Test
  void eachWindowIsWeighedOnItsOwn() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    for (int tick = 0; tick < 10; tick++) {
      span(registry, "stock:7", 100, 40, SECOND / 10);
    }
    assertTrue(servable(registry, "stock:7"), "400 pushes for 1000 reads");
    span(registry, "stock:7", 100, 60, SECOND / 10);
    assertFalse(
        servable(registry, "stock:7"), "the last window's reads do not dilute this one's pushes");
  }

  @Test
  void offServesEveryKeyHoweverOftenItIsPushed() {
    HotKeyRegistry registry = registry(0);
    registry.onPromoted(rate("stock:7", 1000));
    registry.checkFanOut(now);
    window(registry, "stock:7", 10, 1000);
    window(registry, "stock:7", 10, 1000);
    assertTrue(servable(registry, "stock:7"));
    assertEquals(0, registry.fanOutDemotions());
  }
}
