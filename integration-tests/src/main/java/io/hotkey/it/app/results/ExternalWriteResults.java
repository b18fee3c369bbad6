package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.reply;

/**
 * The Jedis {@code external} scenario: rounds of reading a hot key while another client writes it,
 * numbered from 1.
 */
public final class ExternalWriteResults {
  public static final ResultName<String> INITIAL = reply("external.initial");
  public static final WarmUpResults WARMUP = WarmUpResults.named("external");
  public static final JmxResults JMX = JmxResults.at("external");

  private ExternalWriteResults() {}

  /** Reads of {@code round} before the outside write (the test checks they were served locally). */
  public static ResultName<Long> holdReads(int round) {
    return number("external." + round + ".holdReads");
  }

  /** Reads of {@code round} before the outside write that were not the value. */
  public static ResultName<Long> holdWrong(int round) {
    return number("external." + round + ".holdWrong");
  }

  /** Milliseconds from the test's GO to the first read of the written value; -1 not within 5 s. */
  public static ResultName<Long> seenAfterMs(int round) {
    return number("external." + round + ".seenAfterMs");
  }

  public static ResultName<Long> readsUntilSeen(int round) {
    return number("external." + round + ".readsUntilSeen");
  }

  /** Reads of the old value once the new one was seen. */
  public static ResultName<Long> regressions(int round) {
    return number("external." + round + ".regressions");
  }
}
