package io.hotkey.agent.instrument.health;

/** A class the test module weaves without trouble. */
public final class Hooked {
  private Hooked() {}

  public static String answer() {
    return "original";
  }
}
