package io.hotkey.agent.instrument.startfirst;

/** A class of the test module's library that is also the first class it advises, as Jedis is. */
public final class FirstCandidate {
  private FirstCandidate() {}

  public static String answer() {
    return "original";
  }
}
