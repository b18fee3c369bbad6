package io.hotkey.agent.instrument.startfailed;

/** A class the test module advises, in a JVM whose agent failed to start. */
public final class FirstCandidate {
  private FirstCandidate() {}

  public static String answer() {
    return "original";
  }
}
