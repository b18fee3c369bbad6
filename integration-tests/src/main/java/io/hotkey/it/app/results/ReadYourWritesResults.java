package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.reply;
import static io.hotkey.it.app.results.ResultName.text;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The {@code ryw} scenario of the Jedis and the Lettuce app: a writer rotating through the write
 * paths and readers checking that no read is older than the last returned write.
 */
public final class ReadYourWritesResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("ryw");
  public static final ResultName<Long> READS = number("ryw.reads");
  public static final ResultName<Long> WRITES = number("ryw.writes");

  /** Reads older than the last write that had returned when they started. */
  public static final ResultName<Long> VIOLATIONS = number("ryw.violations");

  /** The first few {@link #VIOLATIONS}: the last returned write and what was read. */
  public static final ResultName<List<String>> EXAMPLES = texts("ryw.examples");

  /** {@link #VIOLATIONS} by the path of the write that was not seen, e.g. {@code set=0 ...}. */
  public static final ResultName<String> VIOLATIONS_BY_WRITE_PATH =
      text("ryw.violationsByWritePath");

  /** The value read once every write returned. */
  public static final ResultName<String> FINAL = reply("ryw.final");

  /** The last write that returned (the value it left). */
  public static final ResultName<Long> LAST_RETURNED = number("ryw.lastReturned");

  public static final JmxResults JMX = JmxResults.at("ryw");

  private ReadYourWritesResults() {}
}
