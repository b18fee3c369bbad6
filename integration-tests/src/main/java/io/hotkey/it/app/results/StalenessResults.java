package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.flag;
import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The staleness app: how long reads of a hot key kept answering a step after a newer one was
 * acknowledged by Redis, written by a connection no hook sees.
 */
public final class StalenessResults {
  /** Whether the warm-up saw the key answered locally. */
  public static final ResultName<Boolean> SERVED_AFTER_WARMUP = flag("warmup.served");

  /** Agent connections {@code CLIENT KILL} closed, with {@code --kill-at-step}. */
  public static final ResultName<Long> KILLED = number("killed");

  public static final ResultName<Long> READS = number("reads");

  /** Reads that failed (Redis away), counted rather than fatal. */
  public static final ResultName<Long> READ_FAILURES = number("readFailures");

  /** Reads of a value that was never a step. */
  public static final ResultName<Long> WRONG_VALUES = number("wrongValues");

  /** Local answers while the readers ran. */
  public static final ResultName<Long> HITS = number("hits");

  // staleness percentiles in µs, at the upper edge of 10 µs buckets; -1 without reads
  public static final ResultName<Long> P50_US = number("staleness.p50Us");
  public static final ResultName<Long> P99_US = number("staleness.p99Us");
  public static final ResultName<Long> MAX_US = number("staleness.maxUs");

  /**
   * Milliseconds from {@code CLIENT KILL} until every server was tracked again; -1 not within 20 s.
   */
  public static final ResultName<Long> RETRACKED_AFTER_MS = number("retrackedAfterMs");

  /** The agent's TrackingServers: {@code <address> tracking ...}, one per server. */
  public static final ResultName<List<String>> TRACKING_SERVERS = texts("trackingServers");

  /**
   * Reports the agent held while the application was writing their key, and applied with the
   * write's own invalidation (JMX {@code HeldInvalidations}).
   */
  public static final ResultName<Long> HELD_INVALIDATIONS = number("heldInvalidations");

  /**
   * Reports read and applied by threads about to serve a hit, the tracking reader having not run
   * for the budget (JMX {@code HelpedInvalidations}).
   */
  public static final ResultName<Long> HELPED_INVALIDATIONS = number("helpedInvalidations");

  /** The users the agent's own connections are logged in as, each once, sorted. */
  public static final ResultName<List<String>> AGENT_USERS = texts("agentUsers");

  private StalenessResults() {}
}
