package io.hotkey.demo.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Measuring in alternating rounds: every configuration's measured time is cut into rounds, and the
 * order of the configurations flips from round to round, so that a drift of the machine falls on
 * all of them alike rather than on the one measured last.
 */
final class Rounds {

  private Rounds() {}

  /**
   * The order of {@code setups} in round {@code round} (from 0): as given, then reversed, and so
   * on.
   */
  static <T> List<T> order(List<T> setups, int round) {
    List<T> order = new ArrayList<>(setups);
    if (round % 2 == 1) {
      Collections.reverse(order);
    }
    return order;
  }

  /**
   * The median of {@code with[i] / without[i]} over the rounds: each ratio compares two
   * measurements taken back to back, so a drift of the machine slower than a round pair cancels in
   * it, and the median ignores the pairs that a sudden change (this VM's throughput swings by a
   * quarter within a minute) split.
   */
  static double medianPairedRatio(List<Double> without, List<Double> with) {
    requirePairs(without, with);
    double[] ratios = new double[without.size()];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] = with.get(i) / without.get(i);
    }
    Arrays.sort(ratios);
    int mid = ratios.length / 2;
    return ratios.length % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
  }

  /**
   * A 95% interval of {@code sum(with) / sum(without)}, the summed ratio over every round of every
   * group (one group per pair of JVMs): the 2.5th and 97.5th percentiles of it over 10,000
   * two-level resamples (a percentile bootstrap: draw as many groups as there are, then within each
   * drawn group as many of its round pairs as it has; seeded so that a run's figures can be
   * recomputed). Resampling the groups too is what lets the interval show the spread between JVMs
   * (how each one's JIT compiled the code moves its ratio by several percent), which round pairs of
   * one pair of JVMs cannot; with one group it is the machine's swings within that pair alone.
   */
  static double[] summedRatioInterval(List<List<Double>> without, List<List<Double>> with) {
    requireGroups(without, with);
    int groups = without.size();
    SplittableRandom random = new SplittableRandom(groups * 1_000L + without.get(0).size());
    double[] ratios = new double[10_000];
    for (int b = 0; b < ratios.length; b++) {
      double sumWithout = 0;
      double sumWith = 0;
      for (int g = 0; g < groups; g++) {
        int group = random.nextInt(groups);
        List<Double> groupWithout = without.get(group);
        List<Double> groupWith = with.get(group);
        for (int i = 0; i < groupWithout.size(); i++) {
          int pair = random.nextInt(groupWithout.size());
          sumWithout += groupWithout.get(pair);
          sumWith += groupWith.get(pair);
        }
      }
      ratios[b] = sumWith / sumWithout;
    }
    Arrays.sort(ratios);
    return new double[] {ratios[249], ratios[9_749]};
  }

  /**
   * For each round index, {@code with[i] / without[i]} of every group (one group per pair of JVMs),
   * sorted: the ratio's course over the measured time, so that a warm-up shows as a series that
   * climbs rather than hiding in one summed figure.
   */
  static List<double[]> ratiosByRound(List<List<Double>> without, List<List<Double>> with) {
    requireGroups(without, with);
    int rounds = without.get(0).size();
    List<double[]> byRound = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      double[] ratios = new double[without.size()];
      for (int g = 0; g < ratios.length; g++) {
        if (without.get(g).size() != rounds) {
          throw new IllegalArgumentException("every group needs " + rounds + " rounds");
        }
        ratios[g] = with.get(g).get(r) / without.get(g).get(r);
      }
      Arrays.sort(ratios);
      byRound.add(ratios);
    }
    return byRound;
  }

  /** As many groups on each side, at least one, each with as many rounds on both sides. */
  private static void requireGroups(List<List<Double>> without, List<List<Double>> with) {
    if (without.size() != with.size() || without.isEmpty()) {
      throw new IllegalArgumentException(
          "need as many groups of rounds on each side, at least one: "
              + without.size()
              + " and "
              + with.size());
    }
    for (int g = 0; g < without.size(); g++) {
      requirePairs(without.get(g), with.get(g));
    }
  }

  private static void requirePairs(List<Double> without, List<Double> with) {
    if (without.size() != with.size() || without.isEmpty()) {
      throw new IllegalArgumentException(
          "need as many rounds on each side, at least one: "
              + without.size()
              + " and "
              + with.size());
    }
  }
}
