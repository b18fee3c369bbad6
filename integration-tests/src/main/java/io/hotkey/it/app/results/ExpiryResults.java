package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The expiry app: a hot key given a TTL in each of Redis's ways, read past it. */
public final class ExpiryResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("expiry");

  /**
   * How long after the latest moment the key can have expired (by the app's clock) a read that
   * started then still got its value, in microseconds; 0 if none did.
   */
  public static ResultName<Long> lateMicros(String expiryCase) {
    return number("expiry." + expiryCase + ".lateMicros");
  }

  /** Reads of the case answered by the agent's cache (JMX CacheHits), before the key expired. */
  public static ResultName<Long> hits(String expiryCase) {
    return number("expiry." + expiryCase + ".hits");
  }

  /** Reads of the case that got the key's value before it expired. */
  public static ResultName<Long> valuesBefore(String expiryCase) {
    return number("expiry." + expiryCase + ".valuesBefore");
  }

  private ExpiryResults() {}
}
