package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The default settings count one access in 16. Every bound below is at least five standard
 * deviations of the sample wide (a spurious failure is rarer than one in a million runs), and still
 * fails for a detector that under- or over-weights what it counts, or that samples by position.
 */
class DetectorSamplingTest {

  private final FakeClock clock = new FakeClock();
  private final HotKeyDetector detector =
      new HotKeyDetector(
          DetectorSettings.of(Duration.ofSeconds(1), 1000, 100, Duration.ofSeconds(10)),
          clock,
          HotKeyListener.NONE);

  /**
   * One second of steady traffic, slot by slot, each key at its rate per second, the keys
   * interleaved in a fixed order; {@code writeEvery} > 0 makes every such access of a key a write.
   * Then one more tick: a slot is harvested one tick after it closes.
   */
  private void oneSecond(Map<String, Integer> perSecond, int writeEvery) {
    List<Map.Entry<byte[], Integer>> keys = new ArrayList<>();
    perSecond.forEach(
        (key, rate) -> keys.add(Map.entry(key.getBytes(StandardCharsets.UTF_8), rate / 10)));
    int most = keys.stream().mapToInt(Map.Entry::getValue).max().orElse(0);
    for (int slot = 0; slot < 10; slot++) {
      for (int i = 0; i < most; i++) {
        for (Map.Entry<byte[], Integer> k : keys) {
          if (i < k.getValue()) {
            boolean write = writeEvery > 0 && i % writeEvery == 0;
            detector.record(k.getKey(), KeyHashes.hash(k.getKey()), write);
          }
        }
      }
      tick();
    }
    tick();
  }

  /**
   * Keys {@code prefix + 0} to {@code prefix + (count - 1)}, each at {@code rate} per second, in
   * that order.
   */
  private static Map<String, Integer> keysAt(String prefix, int count, int rate) {
    Map<String, Integer> keys = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      keys.put(prefix + i, rate);
    }
    return keys;
  }

  private void tick() {
    clock.advance(detector.settings().slot());
    detector.tick();
  }

  private KeyRate rateOf(String key) {
    return detector.topKeys(Integer.MAX_VALUE).stream()
        .filter(k -> k.keyString().equals(key))
        .findFirst()
        .orElse(null);
  }

  private boolean isHot(String key) {
    return detector.hotKeys().stream().anyMatch(k -> k.keyString().equals(key));
  }

  @Test
  void aCountedAccessStandsForTheOnesNotCounted() {
    assertEquals(16, detector.settings().sampling());
    Map<String, Integer> traffic = new LinkedHashMap<>();
    traffic.put("flash:stock", 4000);
    traffic.put("item:warm", 500);
    traffic.putAll(keysAt("cold:", 2000, 10));
    oneSecond(traffic, 4);

    KeyRate hot = rateOf("flash:stock");
    assertTrue(isHot("flash:stock"));
    // 250 of its 4000 accesses are counted on average (sd 15.5): the estimate is 4000 ± 6%
    assertTrue(hot.ratePerSecond() > 2700 && hot.ratePerSecond() < 5300, hot.toString());
    assertEquals(0, hot.count() % 16, "each counted access stands for 16: " + hot);
    assertEquals(hot.ratePerSecond(), (double) hot.count(), 1e-9, "the window is one second");
    // a quarter are writes: about 62 of the 250 counted (sd 6.8)
    assertTrue(hot.readShare() > 0.6 && hot.readShare() < 0.9, hot.toString());
    // 31 counted on average, where 62.5 make a key hot: more than five standard deviations below
    assertFalse(isHot("item:warm"), detector.hotKeys().toString());
  }

  @Test
  void manyKeysAtOnceAreEstimatedWithoutBias() {
    oneSecond(keysAt("user:", 100, 2000), 0);

    // 12,500 accesses counted in all (sd 0.9%)
    double sum =
        detector.topKeys(Integer.MAX_VALUE).stream()
            .filter(k -> k.keyString().startsWith("user:"))
            .mapToDouble(KeyRate::ratePerSecond)
            .sum();
    assertTrue(Math.abs(sum - 200_000) < 10_000, "estimated " + sum + " of 200,000 accesses/s");
    // each: 125 counted on average (sd 11), where 62.5 make it hot
    assertEquals(
        100,
        detector.hotKeys().size(),
        "every key at twice the threshold is hot: "
            + detector.hotKeys().stream().map(KeyRate::keyString).collect(Collectors.joining(",")));
  }

  @Test
  void aCycleOfKeysAsLongAsTheSamplingIsCountedEvenly() {
    // A detector that counted every 16th access would see one of these keys 16 times as often as
    // the rest
    oneSecond(keysAt("cycle:", 16, 2000), 0);

    for (int i = 0; i < 16; i++) {
      KeyRate k = rateOf("cycle:" + i);
      // 125 counted on average (sd 11): 2000 ± 9%
      assertTrue(
          k != null && k.ratePerSecond() > 1100 && k.ratePerSecond() < 2900,
          "cycle:" + i + " " + k);
    }
  }
}
