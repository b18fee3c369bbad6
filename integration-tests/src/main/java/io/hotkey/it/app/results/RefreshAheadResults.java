package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The refresh-ahead app: a hot key read without pause while its entry keeps expiring. */
public final class RefreshAheadResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("refresh");

  /** Reads of the key that went to Redis while the readers ran (JMX CacheMisses). */
  public static final ResultName<Long> MISSES = number("misses");

  /** Those of {@link #MISSES} that refreshed the entry ahead of its expiry (CacheRefreshes). */
  public static final ResultName<Long> REFRESHES = number("refreshes");

  private RefreshAheadResults() {}
}
