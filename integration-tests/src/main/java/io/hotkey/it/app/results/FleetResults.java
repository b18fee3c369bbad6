package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** One instance of the fleet app: a key read steadily, below the local threshold. */
public final class FleetResults {
  /** Milliseconds of reading until the agent first answered locally; -1 never. */
  public static final ResultName<Long> SERVED_AFTER_MS = number("servedAfterMs");

  public static final ResultName<Long> READS = number("reads");

  /** Local answers while it read. */
  public static final ResultName<Long> HITS = number("hits");

  private FleetResults() {}
}
