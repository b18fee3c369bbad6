package io.hotkey.agent.instrument.startahead;

/** The class the test module advises. */
public final class CandidateType {
  private CandidateType() {}

  public static String answer() {
    return "original";
  }
}
