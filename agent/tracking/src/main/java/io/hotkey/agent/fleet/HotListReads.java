package io.hotkey.agent.fleet;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * When an instance that reports nothing reads the fleet's hot lists again. Each read costs every
 * master a request, and at 10,000 instances those reads, not the sampled reports, are most of what
 * the fleet costs Redis. So an instance reads only when something it sees may have changed the
 * answer: a key not hot whose count here reached twice both the count the last read already
 * answered for and the report floor (a key spread evenly over the fleet reaches the threshold at
 * twice the floor). The list of that count's window is readable in the next window, so such a key
 * is found as soon as it would have been by reading every window. Anything else (a key that grows
 * only on other instances, a key that cools, the fleet's size) is learned at the latest {@link
 * #refreshWindows} windows after the last read.
 */
final class HotListReads {
  /**
   * Longest run of windows without a read in a fleet of up to {@link #MIN_REFRESH_WINDOWS} times
   * the reporters per window: bounds how late a change seen elsewhere arrives.
   */
  static final int MIN_REFRESH_WINDOWS = 8;

  /**
   * Longest run of windows without a read in any fleet: a key that cooled fleet-wide stops being
   * served within about a minute plus the cool-down.
   */
  static final int MAX_REFRESH_WINDOWS = 64;

  /**
   * The longest run of windows without a read in a fleet of {@code instances} of which {@code
   * reportersPerWindow} report each window: about how often an instance is drawn to report (and so
   * reads anyway), so that the refreshes cost Redis about as many requests per window as the
   * reports, whatever the fleet's size.
   */
  static int refreshWindows(long instances, int reportersPerWindow) {
    long drawnEvery = (instances + reportersPerWindow - 1) / reportersPerWindow;
    return (int) Math.min(MAX_REFRESH_WINDOWS, Math.max(MIN_REFRESH_WINDOWS, drawnEvery));
  }

  private int refreshWindows = MIN_REFRESH_WINDOWS;

  /** The window of the last read of every shard; -1 before the first. */
  private long readWindow = -1;

  /**
   * Per key seen here in the last {@link #refreshWindows} windows: the highest count a read has
   * already answered for, and the last window it was seen in. A key that dips below the report
   * floor now and then is thus not news each time it comes back.
   */
  private final Map<String, Seen> seen = new HashMap<>();

  /** The counts of the last exchange: the window the next read's lists are about. */
  private Map<String, Long> previous = Map.of();

  private boolean risen;

  /** Whether the exchange of {@code window} must read every shard's list. */
  boolean due(long window) {
    return readWindow < 0 || risen || window - readWindow >= refreshWindows;
  }

  /**
   * Records an exchange in {@code window}: whether it read every shard's list, this instance's
   * counts of the window just ended (unscaled), the report floor per window, the keys now hot and
   * the longest run of windows without a read from now on.
   */
  void exchanged(
      long window,
      boolean readAll,
      Map<String, Long> counts,
      long floorPerWindow,
      Set<String> hot,
      int refreshWindows) {
    if (readAll) {
      // the lists just read are about the window of the previous exchange's counts
      previous.forEach(
          (key, count) -> {
            Seen entry = seen.computeIfAbsent(key, k -> new Seen());
            entry.answered = Math.max(entry.answered, count);
          });
      readWindow = window;
      risen = false;
    }
    this.refreshWindows = refreshWindows;
    seen.values().removeIf(key -> window - key.lastWindow > refreshWindows);
    for (Map.Entry<String, Long> count : counts.entrySet()) {
      Seen key = seen.computeIfAbsent(count.getKey(), k -> new Seen());
      key.lastWindow = window;
      if (count.getValue() >= 2 * Math.max(key.answered, floorPerWindow)
          && !hot.contains(count.getKey())) {
        risen = true;
      }
    }
    previous = counts;
  }

  /** What this instance knows of one key it counted. */
  private static final class Seen {
    long answered;
    long lastWindow;
  }
}
