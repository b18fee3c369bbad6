package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.text;

/** The serve-stale app: reads of a hot key after the test stopped Redis. */
public final class StaleOnErrorResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("stale");

  /** Reads answered with the value the key had. */
  public static final ResultName<Long> STALE = number("stale");

  /** Milliseconds after the stop of the last of {@link #STALE}; -1 none. */
  public static final ResultName<Long> LAST_STALE_AFTER_MS = number("lastStaleAfterMs");

  public static final ResultName<Long> FAILURES = number("failures");

  /** Milliseconds after the stop of the first failed read; -1 none. */
  public static final ResultName<Long> FIRST_FAILURE_AFTER_MS = number("firstFailureAfterMs");

  /** Reads answered with anything else. */
  public static final ResultName<Long> WRONG = number("wrong");

  /**
   * How a read of a key that is not hot failed while Redis was gone: the exception's class, or
   * {@code none, answered <value>}.
   */
  public static final ResultName<String> COLD_FAILURE = text("coldFailure");

  /** The agent's {@code CacheStaleServed} at the end. */
  public static final ResultName<Long> STALE_SERVED = number("staleServed");

  private StaleOnErrorResults() {}
}
