package io.hotkey.agent.instrument.startfailed;

/** A class the test module advises, in a JVM whose agent failed to start. */
public final class SecondCandidate {
  private SecondCandidate() {}

  public static String answer() {
    return "original";
  }
}
