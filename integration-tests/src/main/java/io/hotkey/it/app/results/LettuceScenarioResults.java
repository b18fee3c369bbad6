package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.flag;
import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The Lettuce scenario app's {@code serve}, {@code compat} and {@code cluster} scenarios (its
 * {@code ryw} and {@code attach-ryw} report {@link ReadYourWritesResults} and {@link
 * AttachResults}). Every {@code *_EXAMPLES} holds the first few mismatches: what was read where.
 */
public final class LettuceScenarioResults {
  public static final WarmUpResults SERVE_WARMUP = WarmUpResults.named("serve");

  /**
   * Whether the JVM had an MBean server a second after its first commands, before the scenario used
   * JMX: the agent must not make one itself.
   */
  public static final ResultName<Boolean> SERVE_MBEAN_SERVER_BEFORE_JMX =
      flag("serve.mbeanServerBeforeJmx");

  /** Reads of hot keys through sync, async and reactive, String and byte[] codecs. */
  public static final ResultName<Long> SERVE_READS = number("serve.reads");

  public static final ResultName<Long> SERVE_MISMATCHES = number("serve.mismatches");
  public static final ResultName<List<String>> SERVE_EXAMPLES = texts("serve.examples");

  /** Result objects (maps, lists, arrays) handed to a caller more than once. */
  public static final ResultName<Long> SERVE_SHARED_OBJECTS = number("serve.sharedObjects");

  /** Whether what Redis returns inside MULTI, the JSON codec's truth, is what was written. */
  public static final ResultName<Boolean> JSON_TRUTH_IS_WHAT_WAS_WRITTEN =
      flag("json.truthIsWhatWasWritten");

  /** Reads through the application's own JSON codec. */
  public static final ResultName<Long> JSON_READS = number("json.reads");

  /** Products those reads returned, counting each element of a hash or a list. */
  public static final ResultName<Long> JSON_PRODUCTS = number("json.products");

  /** Values the JSON codec decoded meanwhile. */
  public static final ResultName<Long> JSON_DECODES = number("json.decodes");

  public static final ResultName<Long> JSON_MISMATCHES = number("json.mismatches");
  public static final ResultName<List<String>> JSON_EXAMPLES = texts("json.examples");

  /** Objects of a decoded result (map, list, product, its tags) handed out more than once. */
  public static final ResultName<Long> JSON_SHARED_OBJECTS = number("json.sharedObjects");

  /** GETs inside MULTI or with manual flushing, which must all reach Redis. */
  public static final ResultName<Long> UNTOUCHED_GETS = number("untouched.gets");

  /** Mismatches of the whole {@code serve} scenario, writes read back included. */
  public static final ResultName<Long> FINAL_MISMATCHES = number("final.mismatches");

  public static final ResultName<List<String>> FINAL_EXAMPLES = texts("final.examples");
  public static final JmxResults SERVE_JMX = JmxResults.at("serve");

  /** Reads of the {@code compat} scenario (API Lettuce 5 shares), between its SYNC points. */
  public static final ResultName<Long> COMPAT_READS = number("compat.reads");

  public static final ResultName<Long> COMPAT_GETS = number("compat.gets");

  /** Mismatches of reads and of writes read back. */
  public static final ResultName<Long> COMPAT_MISMATCHES = number("compat.mismatches");

  public static final ResultName<List<String>> COMPAT_EXAMPLES = texts("compat.examples");
  public static final ResultName<Long> COMPAT_SHARED_OBJECTS = number("compat.sharedObjects");
  public static final JmxResults COMPAT_JMX = JmxResults.at("compat");

  /** Reads of one hot key between the SYNC points compat-served and compat-foreign. */
  public static final ResultName<Long> COMPAT_SERVED_READS = number("compat.servedReads");

  /** Reads of one hot key pipelined (manual flushing), between compat-pipeline and its -done. */
  public static final ResultName<Long> COMPAT_PIPELINED_READS = number("compat.pipelinedReads");

  /** Milliseconds until another process's write was read back (-1: never, within 10 s). */
  public static final ResultName<Long> COMPAT_FOREIGN_WRITE_MILLIS = number("compat.foreignMillis");

  public static final WarmUpResults CLUSTER_WARMUP = WarmUpResults.named("cluster");

  /** Reads through RedisClusterClient, between its SYNC points. */
  public static final ResultName<Long> CLUSTER_READS = number("cluster.reads");

  /** Mismatches of reads and of writes read back. */
  public static final ResultName<Long> CLUSTER_MISMATCHES = number("cluster.mismatches");

  public static final ResultName<List<String>> CLUSTER_EXAMPLES = texts("cluster.examples");
  public static final JmxResults CLUSTER_JMX = JmxResults.at("cluster");

  private LettuceScenarioResults() {}
}
