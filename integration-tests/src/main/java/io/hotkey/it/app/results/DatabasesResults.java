package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The Jedis {@code databases} scenario: a hot key read in database 0 and, through a {@code Jedis}
 * whose URI names it, in database 2, before and after that connection reconnects.
 */
public final class DatabasesResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("databases");

  /** Answers unlike the value of the database the connection is in. */
  public static final ResultName<Long> MISMATCHES = number("databases.mismatches");

  public static final ResultName<List<String>> EXAMPLES = texts("databases.examples");

  public static final JmxResults JMX = JmxResults.at("databases");

  private DatabasesResults() {}
}
