package io.hotkey.agent.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts and reports failures inside the agent. A failure never reaches the application (the caller
 * falls back to the original behaviour); it is counted and logged at most once per second so a
 * systematic failure cannot flood the application's log.
 */
public final class AgentErrors {
  private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

  private final LongAdder count = new LongAdder();
  private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);
  private final long failEvery;
  private final AtomicLong hooks = new AtomicLong();

  /**
   * @param failEvery diagnostic {@code hotkey.debug.fail-every}: every Nth hook fails on purpose; 0
   *     = never
   */
  public AgentErrors(long failEvery) {
    this.failEvery = failEvery;
  }

  public void record(String where, Throwable error) {
    count.increment();
    long now = System.nanoTime();
    long last = lastLogged.get();
    if (now - last >= LOG_INTERVAL_NANOS && lastLogged.compareAndSet(last, now)) {
      AgentLog.info("internal error in " + where + " (" + count.sum() + " so far): " + error);
    }
  }

  /** Whether {@link #maybeInjectFailure} ever throws. */
  public boolean injectsFailures() {
    return failEvery > 0;
  }

  /** Lets tests prove the safety net with real failures thrown from inside the hooks. */
  public void maybeInjectFailure() {
    if (failEvery > 0 && hooks.incrementAndGet() % failEvery == 0) {
      throw new IllegalStateException("failure injected by hotkey.debug.fail-every=" + failEvery);
    }
  }

  public long count() {
    return count.sum();
  }
}
