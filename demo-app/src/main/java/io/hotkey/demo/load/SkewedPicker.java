package io.hotkey.demo.load;

import java.util.random.RandomGenerator;

/**
 * Picks key indexes in {@code [0, keyCount)} with a hot spot: a share {@code hotShare} of picks
 * lands uniformly on the first {@code hotCount} indexes, the rest uniformly on the others, so the
 * hot keys receive exactly that share (not that share plus their tiny part of the uniform
 * remainder).
 */
public final class SkewedPicker {

  private final int keyCount;
  private final int hotCount;
  private final double hotShare;

  public SkewedPicker(int keyCount, int hotCount, double hotShare) {
    if (keyCount <= 0 || hotCount < 0 || hotCount > keyCount) {
      throw new IllegalArgumentException(
          "need 0 <= hotCount <= keyCount and keyCount > 0, got hotCount="
              + hotCount
              + " keyCount="
              + keyCount);
    }
    if (hotShare < 0
        || hotShare > 1
        || (hotCount == 0 && hotShare > 0)
        || (hotCount == keyCount && hotShare < 1)) {
      throw new IllegalArgumentException(
          "hotShare " + hotShare + " does not fit " + hotCount + " hot keys out of " + keyCount);
    }
    this.keyCount = keyCount;
    this.hotCount = hotCount;
    this.hotShare = hotShare;
  }

  /** Every key equally likely. */
  public static SkewedPicker uniform(int keyCount) {
    return new SkewedPicker(keyCount, 0, 0);
  }

  public int next(RandomGenerator random) {
    if (hotCount > 0 && random.nextDouble() < hotShare) {
      return random.nextInt(hotCount);
    }
    return hotCount + random.nextInt(keyCount - hotCount);
  }

  public boolean isHot(int index) {
    return index < hotCount;
  }

  public int keyCount() {
    return keyCount;
  }
}
