package io.hotkey.agent.core;

/** The log of reads answered from a stale value, for both gateways: once a second at most. */
public final class StaleAnswers {
  private static final RateLimitedLog LOG = new RateLimitedLog();

  private StaleAnswers() {}

  public static void logged(Object why) {
    LOG.warn(
        "stale",
        "a read of a hot key failed on its connection ("
            + why
            + "); answered from the key's last value (hotkey.cache.serve-stale-on-error)");
  }
}
