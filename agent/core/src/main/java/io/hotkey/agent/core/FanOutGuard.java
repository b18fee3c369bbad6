package io.hotkey.agent.core;

import io.hotkey.agent.cache.HotKeyReads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The invalidation fan-out guard. Redis pushes every write of a tracked key to each instance
 * tracking it, a push costing it about what a read does, while serving the key saves it only this
 * instance's reads. A served key whose invalidations received over a window exceed {@code limit} of
 * the reads it had here (writes by other processes, which the write-hot rule does not see) costs
 * Redis more than it saves: it stops being served and tracked here for a cool-down. Once untracked
 * its writes are invisible here, so after the cool-down it is served again, and demoted again
 * within a window if the writes go on. Used by {@link HotKeyRegistry} under its lock.
 */
public final class FanOutGuard {
  /** No guard: every key is served however often it is written elsewhere. */
  static FanOutGuard off() {
    return new FanOutGuard(0, Duration.ofSeconds(1), Duration.ZERO);
  }

  /** One report in a window never demotes a key: a single change is not a rate. */
  private static final long FEWEST_INVALIDATIONS = 2;

  private final double limit;
  private final long windowNanos;
  private final long coolDownNanos;
  private final Map<String, WindowStart> windows = new HashMap<>();
  private final Map<String, Long> demotedUntilNanos = new HashMap<>();
  private final Set<String> logged = new HashSet<>();
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
   * @param window how long the two are compared over ({@code hotkey.detect.window})
   * @param coolDown how long a demoted key stays unserved ({@code hotkey.cache.fan-out-cool-down})
   */
  public FanOutGuard(double limit, Duration window, Duration coolDown) {
    this.limit = limit;
    this.windowNanos = window.toNanos();
    this.coolDownNanos = coolDown.toNanos();
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
   * Weighs each served key's window that ended by {@code nowNanos}; returns the keys demoted now
   * (their cool-down starts, each is logged the first time while it stays hot).
   */
  List<String> check(Map<String, HotKeyReads> served, long nowNanos) {
    windows.keySet().retainAll(served.keySet());
    if (limit <= 0) {
      return List.of();
    }
    List<String> demoted = new ArrayList<>();
    for (Map.Entry<String, HotKeyReads> key : served.entrySet()) {
      String name = key.getKey();
      WindowStart start = windows.get(name);
      if (start == null) {
        windows.put(name, new WindowStart(nowNanos, key.getValue()));
        continue;
      }
      if (nowNanos - start.atNanos < windowNanos) {
        continue;
      }
      WindowStart end = new WindowStart(nowNanos, key.getValue());
      long reads = end.reads - start.reads;
      long invalidations = end.invalidations - start.invalidations;
      windows.put(name, end);
      if (invalidations >= FEWEST_INVALIDATIONS && invalidations > limit * reads) {
        windows.remove(name);
        demotedUntilNanos.put(name, nowNanos + coolDownNanos);
        demotions.incrementAndGet();
        demoted.add(name);
        if (logged.add(name)) {
          AgentLog.info(
              "fan-out key not served: key=\""
                  + name
                  + "\" invalidations="
                  + invalidations
                  + " reads="
                  + reads
                  + " in "
                  + Math.round((end.atNanos - start.atNanos) / 1e6)
                  + "ms; written elsewhere more often than read here, so tracking it costs Redis"
                  + " more than serving it saves (again in "
                  + Duration.ofNanos(coolDownNanos).toSeconds()
                  + "s)");
        }
      }
    }
    return demoted;
  }

  /** The key is hot no more: its next promotion is logged again if it is demoted again. */
  void cooled(String name) {
    logged.remove(name);
  }

  /** Keys demoted by the guard since the start, each cool-down counted once. */
  public long demotions() {
    return demotions.get();
  }
}
