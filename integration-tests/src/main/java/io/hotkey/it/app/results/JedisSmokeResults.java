package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The Jedis {@code smoke} scenario: hot reads through {@code Jedis} (String and binary) and, on
 * Jedis 3, {@code ShardedJedis}, writes read back at once, a pipeline and a transaction, another
 * process's write.
 */
public final class JedisSmokeResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("smoke");

  /** Reads of the hot keys between SYNC smoke and smoke-done (GETs, HGETALLs, LRANGEs). */
  public static final ResultName<Long> READS = number("smoke.reads");

  /** GETs through {@code ShardedJedis} between SYNC sharded and sharded-done; 0 from Jedis 4. */
  public static final ResultName<Long> SHARDED_GETS = number("smoke.shardedGets");

  /** Writes each read back at once, on the writing connection and on another one. */
  public static final ResultName<Long> WRITES = number("smoke.writes");

  /** GETs in the pipeline between SYNC pipeline and pipeline-done. */
  public static final ResultName<Long> PIPELINED_GETS = number("smoke.pipelinedGets");

  /** GETs in the transaction between SYNC multi and multi-done. */
  public static final ResultName<Long> TRANSACTION_GETS = number("smoke.transactionGets");

  /** GETs between SYNC served and foreign, before the other process writes. */
  public static final ResultName<Long> SERVED_GETS = number("smoke.servedGets");

  /** Milliseconds until the other process's write was read; -1 not within 10 s. */
  public static final ResultName<Long> FOREIGN_WRITE_MILLIS = number("smoke.foreignWriteMillis");

  /** Answers unlike Redis' (or unlike a write that returned). */
  public static final ResultName<Long> MISMATCHES = number("smoke.mismatches");

  public static final ResultName<List<String>> EXAMPLES = texts("smoke.examples");

  public static final JmxResults JMX = JmxResults.at("smoke");

  private JedisSmokeResults() {}
}
