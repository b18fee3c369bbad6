package io.hotkey.agent.instrument.startunwoven;

/**
 * A class of the test module's library that it names but leaves as it is, the first to load, as
 * Jedis 3's {@code Jedis} is in Jedis 4 and later.
 */
public final class UnwovenCandidate {
  private UnwovenCandidate() {}

  public static String answer() {
    return "original";
  }
}
