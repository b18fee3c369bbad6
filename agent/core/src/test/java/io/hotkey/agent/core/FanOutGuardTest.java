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
 * outweigh half its reads over a whole window, in which it was read at its hot rate here, stops
 * being served and tracked for the cool-down, twice as long each time while it stays hot. Time is
 * the clock the test moves, handed to each check as the detector tick does; the cool-down's jitter
 * is the test's too.
 */
class FanOutGuardTest {
  private static final KeyFilter EVERY_KEY = new KeyFilter(List.of(Glob.parse("*")), List.of());
  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  /** The detector's threshold: a key read this often a second here is hot here. */
  private static final double HOT_PER_SECOND = 200;

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

  private void tick(HotKeyRegistry registry) {
    registry.checkFanOut(now, HOT_PER_SECOND);
  }

  /** One window of a served key: its reads here and the pushes tracking received for it. */
  private void window(HotKeyRegistry registry, String key, int reads, int invalidations) {
    span(registry, key, reads, invalidations, SECOND);
  }

  /** A tick's worth of a served key: reads and pushes over {@code nanos}, then the tick. */
  private void span(HotKeyRegistry registry, String key, int reads, int invalidations, long nanos) {
    HotKeyReads counts = registry.reads(key);
    for (int n = 0; n < reads; n++) {
      HotKeyReads.count(new HotKeyReads[] {counts}, 1, n % 2 == 0);
    }
    for (int n = 0; n < invalidations; n++) {
      registry.countInvalidation(bytes(key));
    }
    now += nanos;
    tick(registry);
  }

  @Test
  void aKeyPushedMoreThanHalfAsOftenAsItIsReadStopsBeingServedAndTracked() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    registry.onPromoted(rate("product:1", 1000));
    tick(registry); // the windows start
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
  void aReadHotKeyWrittenElsewhereAboveTheLimitIsDemotedWhenItsFirstWholeWindowEnds() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    for (int tick = 1; tick < 10; tick++) {
      span(registry, "stock:7", 100, 60, SECOND / 10);
      assertTrue(servable(registry, "stock:7"), "no verdict on a part of a window, tick " + tick);
    }
    span(registry, "stock:7", 100, 60, SECOND / 10);
    assertFalse(servable(registry, "stock:7"), "600 pushes for 1000 reads over the window");
    assertEquals(List.of("stock:7"), untracked);
  }

  @Test
  void anIdleInstanceReceivingAnotherInstancesPushesIsNeverDemoted() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 5000, 100);
    // another instance reads and writes it while this one waits: the pushes keep coming
    for (int second = 0; second < 90; second++) {
      window(registry, "stock:7", 0, 200);
    }
    assertTrue(servable(registry, "stock:7"), "read nowhere here, so there is nothing to weigh");
    // a tail of reads below the hot rate, as the key cools here, is no verdict either
    window(registry, "stock:7", (int) HOT_PER_SECOND - 1, 200);
    assertTrue(servable(registry, "stock:7"), "cooling: the detector's to demote");
    window(registry, "stock:7", 5000, 100);
    assertTrue(servable(registry, "stock:7"), "read again, and served all along");
    assertEquals(0, registry.fanOutDemotions());
    assertEquals(List.of(), untracked);
  }

  @Test
  void aKeyReadAtItsHotRateIsWeighedEvenWhenItsPushesOutnumberItsReads() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", (int) HOT_PER_SECOND, (int) HOT_PER_SECOND);
    assertFalse(servable(registry, "stock:7"), "read at the hot rate, pushed as often");
  }

  @Test
  void aBurstOfPushesWithinAWindowWhoseReadsOutweighThemDoesNotDemote() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    // the readers starved of CPU for a tick while a batch of writes lands
    span(registry, "stock:7", 10, 100, SECOND / 10);
    for (int tick = 1; tick < 10; tick++) {
      span(registry, "stock:7", 110, 20, SECOND / 10);
    }
    assertTrue(servable(registry, "stock:7"), "280 pushes for 1000 reads over the window");
    assertEquals(0, registry.fanOutDemotions());
  }

  @Test
  void eachWindowIsWeighedOnItsOwn() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    for (int tick = 0; tick < 10; tick++) {
      span(registry, "stock:7", 100, 40, SECOND / 10);
    }
    assertTrue(servable(registry, "stock:7"), "400 pushes for 1000 reads");
    for (int tick = 0; tick < 10; tick++) {
      span(registry, "stock:7", 100, 60, SECOND / 10);
    }
    assertFalse(
        servable(registry, "stock:7"), "the last window's reads do not dilute this one's pushes");
  }

  @Test
  void aWindowTheTicksOverranIsWeighedAtItsLengthAgainstTheHotRate() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    // the tick thread stalled: one check three seconds on, whose reads are one second's worth
    span(registry, "stock:7", (int) HOT_PER_SECOND, 1000, 3 * SECOND);
    assertTrue(servable(registry, "stock:7"), "read at a third of the hot rate over the span");
    span(registry, "stock:7", (int) (3 * HOT_PER_SECOND), 1000, 3 * SECOND);
    assertFalse(servable(registry, "stock:7"));
  }

  @Test
  void aDemotedKeyIsServedAgainAfterTheCoolDownAndDemotedAgainForTwiceAsLongIfTheWritesGoOn() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 300, 300);
    assertFalse(servable(registry, "stock:7"));

    // while demoted nothing is pushed for it (untracked), and reads reach Redis uncounted
    now += Duration.ofSeconds(29).toNanos();
    tick(registry);
    assertFalse(servable(registry, "stock:7"), "within the cool-down");
    now += SECOND;
    tick(registry);
    assertTrue(servable(registry, "stock:7"), "the cool-down is over: tried again");

    window(registry, "stock:7", 300, 240);
    assertFalse(servable(registry, "stock:7"), "its writes went on: demoted after a window");
    assertEquals(2, registry.fanOutDemotions());
    assertEquals(List.of("stock:7", "stock:7"), untracked);
    now += Duration.ofSeconds(59).toNanos();
    tick(registry);
    assertFalse(servable(registry, "stock:7"), "the second cool-down is twice as long");
    now += SECOND;
    tick(registry);
    assertTrue(servable(registry, "stock:7"));

    registry.onDemoted(rate("stock:7", 0));
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 300, 240);
    now += Duration.ofSeconds(30).toNanos();
    tick(registry);
    assertTrue(servable(registry, "stock:7"), "cooled and hot again: the shortest cool-down");
  }

  @Test
  void theCoolDownDoublesAtMostFourTimes() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    for (int demotion = 0; demotion < 6; demotion++) {
      window(registry, "stock:7", 300, 300);
      assertFalse(servable(registry, "stock:7"));
      long coolDownSeconds = 30L * Math.min(1 << demotion, FanOutGuard.LONGEST_COOL_DOWNS);
      now += Duration.ofSeconds(coolDownSeconds - 1).toNanos();
      tick(registry);
      assertFalse(servable(registry, "stock:7"), "demotion " + demotion);
      now += Duration.ofSeconds(1).toNanos();
      tick(registry);
      assertTrue(servable(registry, "stock:7"), "demotion " + demotion);
    }
  }

  @Test
  void eachCoolDownIsLongerByUpToHalfItsJitter() {
    jitter = 0.99;
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 300, 300);
    now += Duration.ofSeconds(44).toNanos();
    tick(registry);
    assertFalse(servable(registry, "stock:7"), "30 s and 0.99 of half of it");
    now += SECOND;
    tick(registry);
    assertTrue(servable(registry, "stock:7"));
  }

  @Test
  void aKeyThatCoolsAndIsPromotedAgainWithinTheCoolDownStaysUnserved() {
    HotKeyRegistry registry = registry(0.5);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 300, 300);
    registry.onDemoted(rate("stock:7", 0));
    registry.onPromoted(rate("stock:7", 1000));
    assertFalse(servable(registry, "stock:7"));
  }

  @Test
  void aFleetHotKeyIsWeighedAgainstItsShareFloorAndASingleWriteNeverDemotesIt() {
    HotKeyRegistry registry = registry(0.5);
    // 20,000/s over a fleet of 5,000: this instance reports it from 2 reads a second
    registry.onFleetHotKeys(List.of(new HotKeyRegistry.FleetHotKey(bytes("price:3"), 20_000, 2)));
    tick(registry);
    window(registry, "price:3", 1, 100);
    assertTrue(servable(registry, "price:3"), "read below its share here");
    window(registry, "price:3", 2, 1);
    assertTrue(servable(registry, "price:3"), "one push is not a rate");
    window(registry, "price:3", 2, 2);
    assertFalse(servable(registry, "price:3"), "a fleet-hot key read twice, pushed twice");
  }

  @Test
  void offServesEveryKeyHoweverOftenItIsPushed() {
    HotKeyRegistry registry = registry(0);
    registry.onPromoted(rate("stock:7", 1000));
    tick(registry);
    window(registry, "stock:7", 1000, 100_000);
    window(registry, "stock:7", 1000, 100_000);
    assertTrue(servable(registry, "stock:7"));
    assertEquals(0, registry.fanOutDemotions());
  }
}
