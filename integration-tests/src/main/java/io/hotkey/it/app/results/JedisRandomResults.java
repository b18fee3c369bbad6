package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/** The Jedis random-sequence app: seeded random operations on hot keys from several threads. */
public final class JedisRandomResults {
  public static final ResultName<Long> SEED = number("random.seed");
  public static final WarmUpResults WARMUP = WarmUpResults.named("random");
  public static final ResultName<Long> OPERATIONS = number("random.ops");
  public static final ResultName<Long> READS = number("random.reads");

  /** Reads older than a returned write, and keys whose final value differs between clients. */
  public static final ResultName<Long> VIOLATIONS = number("random.violations");

  /** The first few {@link #VIOLATIONS}, each with the thread's recent operations. */
  public static final ResultName<List<String>> EXAMPLES = texts("random.examples");

  private JedisRandomResults() {}
}
