package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The Jedis {@code cooldown} scenario: a hot key whose traffic drops to a trickle. */
public final class CoolDownResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("cooldown");
  public static final JmxResults HOT_JMX = JmxResults.at("cooldown.hot");

  /** Milliseconds of the trickle until JMX no longer listed the key hot; -1 never. */
  public static final ResultName<Long> DEMOTED_AFTER_MS = number("cooldown.demotedViaJmxAfterMs");

  public static final JmxResults COLD_JMX = JmxResults.at("cooldown.cold");

  /** Reads once demoted, between the SYNC points the test counts Redis' GETs at. */
  public static final ResultName<Long> COLD_READS = number("cooldown.coldReads");

  /** Reads unlike the value, throughout. */
  public static final ResultName<Long> WRONG = number("cooldown.wrong");

  private CoolDownResults() {}
}
