package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The invalidation fan-out guard. Redis pushes every write of a tracked key to each instance
 * tracking it, a push costing it about what a read does, while serving the key saves it only this
 * instance's reads. A served key whose invalidations received over a whole window exceed {@code
 * limit} of the reads it had here in that window (writes by other processes, which the write-hot
 * rule does not see) costs Redis more than it saves: it stops being served and tracked here for a
 * cool-down. A window in which the key was read here below its hot rate gives no verdict: an idle
 * or cooling key saves nothing and costs little, and is the detector's to demote. Once untracked
 * its writes are invisible here, so after the cool-down it is served again, and demoted again if
 * the writes go on, for twice as long each time while it stays hot (at most {@link
 * #LONGEST_COOL_DOWNS} times the cool-down). Used by {@link HotKeyRegistry} under its lock.
 */
public final class FanOutGuard {
  /** One report never demotes a key: a single change is not a rate. */
  private static final long FEWEST_INVALIDATIONS = 2;

  /** The longest cool-down, in cool-downs: a key rewritten for hours is tried every 16. */
  static final int LONGEST_COOL_DOWNS = 16;

  private final double limit;
  private final long windowNanos;
  private final long coolDownNanos;
  private final DoubleSupplier jitter;
  private final Map<String, WindowStart> windows = new HashMap<>();
  private final Map<String, Long> demotedUntilNanos = new HashMap<>();

  /** Demotions of each key while it stays hot: its next cool-down is 2^n times as long. */
  private final Map<String, Integer> strikes = new HashMap<>();

  private final AtomicLong demotions = new AtomicLong();

  /** A served key's counts when its current window began. */
  private static final class WindowStart {
    final long atNanos;
    final long reads;
    final long invalidations;

    WindowStart(long atNanos, HotKeyReads counts) {
      this.atNanos = atNanos;
      this.reads = counts.hits() + counts.misses();
      this.invalidations = counts.invalidations();
    }
  }

  /**
   * @param limit invalidations per served read above which a key is demoted ({@code
   *     hotkey.cache.fan-out-limit}); 0 turns the guard off
   * @param window how long the two are compared over, a verdict coming only at its end ({@code
   *     hotkey.detect.window})
   * @param coolDown how long a demoted key stays unserved the first time ({@code
   *     hotkey.cache.fan-out-cool-down})
   */
  public FanOutGuard(double limit, Duration window, Duration coolDown) {
    this(limit, window, coolDown, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param jitter a number in [0, 1): each cool-down is longer by up to half, so that the instances
   *     of a fleet that demoted a key in the same window do not all track it again at once
   */
  FanOutGuard(double limit, Duration window, Duration coolDown, DoubleSupplier jitter) {
    this.limit = limit;
    this.windowNanos = window.toNanos();
    this.coolDownNanos = coolDown.toNanos();
    this.jitter = jitter;
  }

  /** No guard: every key is served however often it is written elsewhere. */
  static FanOutGuard off() {
    return new FanOutGuard(0, Duration.ofSeconds(1), Duration.ZERO, () -> 0);
  }

  boolean demoted(String name) {
    return demotedUntilNanos.containsKey(name);
  }

  /** Ends the cool-downs that are over; whether any did. */
  boolean release(long nowNanos) {
    boolean released = false;
    for (Iterator<Long> until = demotedUntilNanos.values().iterator(); until.hasNext(); ) {
      if (nowNanos - until.next() >= 0) {
        until.remove();
        released = true;
      }
    }
    return released;
  }

  /**
   * Weighs, for each served key whose window is over, the reports received against the reads here
   * over that window, if the key was read at {@code hotReadsPerSecond} of it or more; returns the
   * keys demoted now (their cool-down starts, each is logged the first time while it stays hot).
   * Each window starts when the one before ends, or when the key is first seen served.
   */
  List<String> check(
      Map<String, HotKeyReads> served, ToDoubleFunction<String> hotReadsPerSecond, long nowNanos) {
    windows.keySet().retainAll(served.keySet());
    if (limit <= 0) {
      return List.of();
    }
    List<String> demoted = new ArrayList<>();
    for (Map.Entry<String, HotKeyReads> key : served.entrySet()) {
      String name = key.getKey();
      WindowStart start = windows.get(name);
      if (start != null && nowNanos - start.atNanos < windowNanos) {
        continue;
      }
      WindowStart now = new WindowStart(nowNanos, key.getValue());
      windows.put(name, now);
      if (start == null) {
        continue;
      }
      long elapsed = nowNanos - start.atNanos;
      long reads = now.reads - start.reads;
      long invalidations = now.invalidations - start.invalidations;
      boolean readHot = reads >= hotReadsPerSecond.applyAsDouble(name) * elapsed / 1e9;
      if (readHot && invalidations >= FEWEST_INVALIDATIONS && invalidations > limit * reads) {
        windows.remove(name);
        demote(name, nowNanos, invalidations, reads, elapsed);
        demoted.add(name);
      }
    }
    return demoted;
  }

  private void demote(String name, long nowNanos, long invalidations, long reads, long elapsed) {
    int times = strikes.merge(name, 1, Integer::sum);
    long coolDown =
        Math.round(
            coolDownNanos
                * Math.min(1L << Math.min(times - 1, 30), LONGEST_COOL_DOWNS)
                * (1 + jitter.getAsDouble() / 2));
    demotedUntilNanos.put(name, nowNanos + coolDown);
    demotions.incrementAndGet();
    if (times == 1) {
      AgentLog.info(
          "fan-out key not served: key=\""
              + name
              + "\" invalidations="
              + invalidations
              + " reads="
              + reads
              + " in "
              + Math.round(elapsed / 1e6)
              + "ms; written elsewhere more often than read here, so tracking it costs Redis"
              + " more than serving it saves (again in "
              + Duration.ofNanos(coolDown).toSeconds()
              + "s, then twice as long each time)");
    }
  }

  /**
   * The key is hot no more: if it is demoted again after its next promotion, that is logged again
   * and its cool-down starts from the shortest.
   */
  void cooled(String name) {
    strikes.remove(name);
  }

  /** Keys demoted by the guard since the start, each cool-down counted once. */
  public long demotions() {
    return demotions.get();
  }
}
