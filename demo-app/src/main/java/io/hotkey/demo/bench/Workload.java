package io.hotkey.demo.bench;

import io.hotkey.demo.load.SkewedPicker;
import java.util.Locale;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * The key-value workloads behind the product's performance claims, identical with and without the
 * agent.
 */
public enum Workload {

  /** Nothing is hot: measures what the agent costs on ordinary traffic. */
  COLD(
      SkewedPicker.uniform(Workload.KEY_COUNT),
      0.10,
      "GET/SET uniformly over 100,000 keys, 90% GET / 10% SET; no key is hot"),

  /** A hot-key storm: measures what the local cache saves Redis and gains the application. */
  STORM(
      new SkewedPicker(Workload.KEY_COUNT, 10, 0.90),
      0.02,
      "90% of operations on 10 keys, the rest uniform over the other 99,990; 98% GET / 2% SET"),

  /**
   * The storm's keys, read only: with {@code --baseline-agent hotkey.cache.invalidation=ttl}, what
   * tracking itself costs when the application does not write its hot keys (each such write costs
   * tracking a Redis read more than TTL-only expiry: its own invalidation comes back from Redis).
   */
  STORM_READS(
      new SkewedPicker(Workload.KEY_COUNT, 10, 0.90),
      0,
      "90% of operations on 10 keys, the rest uniform over the other 99,990; GET only");

  static final int KEY_COUNT = 100_000;

  /** Small values, like the session tokens and counters that typically go hot. */
  static final String VALUE = "v".repeat(64);

  private static final int SEED_BATCH = 1_000;

  @SuppressWarnings("ImmutableEnumChecker") // only final fields
  private final SkewedPicker keys;

  private final double writeShare;
  private final String description;

  Workload(SkewedPicker keys, double writeShare, String description) {
    this.keys = keys;
    this.writeShare = writeShare;
    this.description = description;
  }

  public static Workload named(String name) {
    try {
      return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown workload " + name + "; expected cold, storm or storm-reads");
    }
  }

  public static String key(int index) {
    return "bench:" + index;
  }

  public SkewedPicker keys() {
    return keys;
  }

  public double writeShare() {
    return writeShare;
  }

  public String description() {
    return description;
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Writes every key the workload can touch, so reads never hit a missing key. */
  public void seed(UnifiedJedis redis) {
    try (AbstractPipeline pipeline = redis.pipelined()) {
      for (int index = 0; index < keys.keyCount(); index++) {
        pipeline.set(key(index), VALUE);
        if ((index + 1) % SEED_BATCH == 0) {
          pipeline.sync();
        }
      }
    }
  }
}
