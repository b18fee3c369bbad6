package io.hotkey.demo.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SkewedPickerTest {

  private static final int DRAWS = 1_000_000;

  @Test
  void sendsNinetyPercentOfPicksToTenKeysSpreadEvenlyAmongThem() {
    SkewedPicker picker = new SkewedPicker(100_000, 10, 0.90);
    SplittableRandom random = new SplittableRandom(42);
    long[] hotCounts = new long[10];
    long coldPicks = 0;
    double coldIndexSum = 0;
    for (int i = 0; i < DRAWS; i++) {
      int index = picker.next(random);
      assertTrue(index >= 0 && index < 100_000, "index out of range: " + index);
      if (picker.isHot(index)) {
        hotCounts[index]++;
      } else {
        coldPicks++;
        coldIndexSum += index;
      }
    }
    // Binomial standard deviation of the hot share is 0.0003 here; 0.003 is ten of them.
    assertEquals(0.90, (DRAWS - coldPicks) / (double) DRAWS, 0.003);
    for (long count : hotCounts) {
      assertEquals(0.09, count / (double) DRAWS, 0.003);
    }
    // The remainder is uniform over the other keys, so its mean sits in the middle of their range.
    assertEquals((10 + 99_999) / 2.0, coldIndexSum / coldPicks, 100_000 * 0.005);
  }

  @Test
  void uniformPickerHasNoHotKeys() {
    SkewedPicker picker = SkewedPicker.uniform(1_000);
    SplittableRandom random = new SplittableRandom(7);
    long lowerHalf = 0;
    for (int i = 0; i < DRAWS; i++) {
      if (picker.next(random) < 500) {
        lowerHalf++;
      }
    }
    assertEquals(0.5, lowerHalf / (double) DRAWS, 0.003);
    assertFalse(picker.isHot(0));
  }

  @Test
  void rejectsSharesThatCannotBeMet() {
    assertThrows(IllegalArgumentException.class, () -> new SkewedPicker(10, 0, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new SkewedPicker(10, 10, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new SkewedPicker(10, 11, 1.0));
    assertThrows(IllegalArgumentException.class, () -> new SkewedPicker(10, 2, 1.5));
  }
}
