package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/**
 * The Redis-restart app, beside the staleness measure it shares with the staleness app ({@link
 * StalenessResults}: reads, failed reads, staleness, hits, tracking again, tracking state).
 */
public final class RedisRestartResults {
  /** Local answers before Redis was stopped. */
  public static final ResultName<Long> HITS_BEFORE_RESTART = number("hitsBeforeRestart");

  /** Milliseconds from Redis answering again until the next local answer; -1 not within 30 s. */
  public static final ResultName<Long> SERVED_AGAIN_AFTER_MS = number("servedAgainAfterMs");

  /** Local answers after Redis answered again. */
  public static final ResultName<Long> HITS_AFTER_RESTART = number("hitsAfterRestart");

  /** SETs the writer had to resend while Redis was away. */
  public static final ResultName<Long> WRITE_FAILURES = number("writeFailures");

  /** The agent's {@code CacheFlushes} for reason {@code tracking_lost}. */
  public static final ResultName<Long> TRACKING_LOST = number("trackingLost");

  private RedisRestartResults() {}
}
