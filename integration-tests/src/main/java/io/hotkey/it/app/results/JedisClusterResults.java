package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.reply;
import static io.hotkey.it.app.results.ResultName.text;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/** The JedisCluster app: a hot key and a hot hash field of a 3-master cluster. */
public final class JedisClusterResults {
  /** The key's value before the warm-up. */
  public static final ResultName<String> INITIAL = reply("cluster.initial");

  /** The hash field's value before the warm-up. */
  public static final ResultName<String> INITIAL_FIELD = reply("cluster.initialField");

  public static final WarmUpResults WARMUP = WarmUpResults.named("cluster");
  public static final JmxResults AFTER_WARMUP_JMX = JmxResults.at("cluster.afterWarmup");
  public static final ResultName<Long> GETS = number("cluster.get.n");
  public static final ResultName<Long> HGETS = number("cluster.hget.n");

  /** GETs and HGETs unlike the initial values. */
  public static final ResultName<Long> MISMATCHES = number("cluster.mismatches");

  /** The agent's TrackingServers: {@code <address> tracking ...}, one per server. */
  public static final ResultName<List<String>> TRACKING_SERVERS = texts("trackingServers");

  public static final ResultName<String> WRITE_READ_BACK = reply("cluster.write.readBack");
  public static final ResultName<String> HSET_READ_BACK = reply("cluster.hset.readBack");

  // a write, then a read, after each abnormal path: "ok" or what was read instead
  public static final ResultName<String> AFTER_ABANDONED_PIPELINE =
      text("redirect.abandonedPipeline");

  /**
   * {@link #AFTER_ABANDONED_PIPELINE} of a Jedis before 4.0, whose JedisCluster cannot pipeline.
   */
  public static final String NO_CLUSTER_PIPELINE = "no cluster pipeline in this Jedis";

  public static final ResultName<String> ASK_REDIRECTED = text("redirect.ask");
  public static final ResultName<String> MOVED_REDIRECTED = text("redirect.moved");

  public static final JmxResults END_JMX = JmxResults.at("cluster.end");

  private JedisClusterResults() {}
}
