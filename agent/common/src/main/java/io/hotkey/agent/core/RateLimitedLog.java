package io.hotkey.agent.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Log lines written at most once a second per kind; the kinds are a handful of constants. */
public final class RateLimitedLog {
  private static final long INTERVAL_NANOS = 1_000_000_000L;

  private final Map<String, AtomicLong> lastLogged = new ConcurrentHashMap<>();

  public void warn(String kind, String message) {
    if (due(kind)) {
      AgentLog.warn(message);
    }
  }

  public void info(String kind, String message) {
    if (due(kind)) {
      AgentLog.info(message);
    }
  }

  private boolean due(String kind) {
    AtomicLong last =
        lastLogged.computeIfAbsent(kind, k -> new AtomicLong(System.nanoTime() - INTERVAL_NANOS));
    long now = System.nanoTime();
    long then = last.get();
    return now - then >= INTERVAL_NANOS && last.compareAndSet(then, now);
  }
}
