package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/**
 * The live-load app's own counts: its answer to {@code GET /stats}, and its stdout when it exits by
 * itself.
 */
public final class LiveLoadResults {
  /** Reads of the keys it loads. */
  public static final ResultName<Long> READS = number("reads");

  /** Reads that returned another value than the one it wrote. */
  public static final ResultName<Long> WRONG = number("wrong");

  /** Ticks cut short by a failed call, counted rather than fatal. */
  public static final ResultName<Long> FAILED = number("failed");

  private LiveLoadResults() {}
}
