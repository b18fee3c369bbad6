package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The Jedis {@code hotread} scenario: the test's keys made hot, then each read n times. */
public final class HotReadResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("hotread");
  public static final JmxResults JMX = JmxResults.at("hotread");

  private HotReadResults() {}

  public static ResultName<Long> reads(String key) {
    return number("hotread." + key + ".n");
  }

  /** Reads of {@code key} unlike its value before the warm-up. */
  public static ResultName<Long> mismatches(String key) {
    return number("hotread." + key + ".mismatches");
  }
}
