package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The write-then-read app: keys read, written through one path, read again at once. */
public final class WriteThenReadResults {
  /** Reads right after a write through {@code path} that did not return the written value. */
  public static ResultName<Long> mismatches(String path) {
    return number("writeThenRead." + path + ".mismatches");
  }

  /** Rounds run through {@code path}. */
  public static ResultName<Long> rounds(String path) {
    return number("writeThenRead." + path + ".rounds");
  }

  /** Reads the agent answered locally over the run (JMX CacheHits). */
  public static final ResultName<Long> HITS = number("writeThenRead.hits");

  /**
   * The third party's sequence, {@code SET k v; GET k} on one connection: reads that did not get
   * {@code v}.
   */
  public static final ResultName<Long> SET_GET_MISMATCHES =
      number("writeThenRead.setGet.mismatches");

  /** Of those {@code GET}s, the ones the agent answered locally. */
  public static final ResultName<Long> SET_GET_LOCAL = number("writeThenRead.setGet.local");

  /**
   * Lettuce: reads on another thread, through the same connection, right after a write sent there
   * and not awaited, that did not see it.
   */
  public static final ResultName<Long> UNAWAITED_MISMATCHES =
      number("writeThenRead.unawaited.mismatches");

  /** {@code OBJECT IDLETIME} of a key on its node after 5 s of reads all answered locally. */
  public static final ResultName<Long> IDLE_WHILE_SERVED = number("writeThenRead.idleWhileServed");

  private WriteThenReadResults() {}
}
