package io.hotkey.agent.detect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which tracked keys are hot. A key is promoted when its windowed rate is {@code >= threshold}; at
 * most {@code topK} keys are hot at once. When more keys qualify, higher rates win: a newcomer
 * first takes a free place, then the place of a hot key that is cooling down (below threshold),
 * lowest count first, then the place of a hot key with a strictly lower count. A hot key is demoted
 * once it has stayed below threshold for {@code coolDown}, measured with the detector's clock from
 * the first tick that saw it below.
 *
 * <p>Hot keys are the {@link KeyWindow#pin pinned} entries of the window, so they keep their counts
 * while they cool down. Owned by the tick thread; its buffers are allocated once.
 */
final class PromotionPolicy {

  private static final long NONE = Long.MIN_VALUE;

  /** In a hot key's victim order: set when it is not cooling down (cooling keys go first). */
  private static final long NOT_COOLING = 1L << CountOrder.FREE_BIT;

  private double threshold;
  private int topK;
  private long coolDownNanos;

  /** Per window entry: when a hot key was first seen below threshold, {@link #NONE} if not. */
  private final long[] belowSince;

  private final long[] qualified; // not hot, at or above threshold, by count
  private long[] victims; // hot, in the order they give way
  private int hotCount;

  PromotionPolicy(DetectorSettings settings) {
    threshold = settings.threshold();
    topK = settings.topK();
    coolDownNanos = settings.coolDown().toNanos();
    belowSince = new long[settings.capacity()];
    qualified = new long[settings.capacity()];
    victims = new long[topK];
    Arrays.fill(belowSince, NONE);
  }

  /**
   * Takes a reloaded threshold, top-k and cool-down from the next {@link #decide} on; a lower top-k
   * demotes the coldest hot keys there.
   */
  void retune(DetectorSettings settings) {
    threshold = settings.threshold();
    coolDownNanos = settings.coolDown().toNanos();
    topK = settings.topK();
    if (victims.length < topK) {
      victims = new long[topK];
    }
  }

  /** The keys demoted and promoted by one {@link #decide}, in the order listeners hear them. */
  static final class Changes {
    final List<KeyRate> demoted = new ArrayList<>();
    final List<KeyRate> promoted = new ArrayList<>();
  }

  /** Promotes and demotes the window's keys as of {@code now} (the detector's clock). */
  Changes decide(KeyWindow window, long now) {
    Changes changes = new Changes();
    int candidates = 0;
    int hot = 0;
    for (int e = 0; e < window.extent(); e++) {
      if (!window.used(e)) {
        continue;
      }
      boolean above = window.rate(e) >= threshold;
      if (window.pinned(e)) {
        if (above) {
          belowSince[e] = NONE;
        } else {
          if (belowSince[e] == NONE) {
            belowSince[e] = now;
          }
          if (now - belowSince[e] >= coolDownNanos) {
            changes.demoted.add(demote(window, e));
            continue;
          }
        }
        victims[hot++] =
            (belowSince[e] == NONE ? NOT_COOLING : 0) | CountOrder.of(window.count(e), e);
      } else if (above) {
        qualified[candidates++] = CountOrder.of(window.count(e), e);
      }
    }
    int victim = 0;
    if (hotCount > topK) {
      // top-k was lowered by a reload: the coldest hot keys give way
      Arrays.sort(victims, 0, hot);
      while (hotCount > topK) {
        changes.demoted.add(demote(window, CountOrder.index(victims[victim++])));
      }
    }
    if (candidates > 0) {
      Arrays.sort(qualified, 0, candidates);
      Arrays.sort(victims, victim, hot);
      for (int i = candidates - 1; i >= 0; i--) {
        int e = CountOrder.index(qualified[i]);
        if (hotCount >= topK) {
          if (victim >= hot) {
            break;
          }
          long v = victims[victim];
          int ve = CountOrder.index(v);
          if ((v & NOT_COOLING) != 0 && window.count(ve) >= window.count(e)) {
            break; // the remaining candidates are not hotter than the coldest hot key
          }
          victim++;
          changes.demoted.add(demote(window, ve));
        }
        window.pin(e);
        belowSince[e] = NONE;
        hotCount++;
        changes.promoted.add(window.keyRate(e));
      }
    }
    return changes;
  }

  private KeyRate demote(KeyWindow window, int e) {
    window.unpin(e);
    belowSince[e] = NONE;
    hotCount--;
    return window.keyRate(e);
  }

  /** Bytes of the policy's arrays (headers not included), fixed at construction. */
  long memoryBytes() {
    return 8L * (belowSince.length + qualified.length + victims.length);
  }
}
