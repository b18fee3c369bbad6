package io.hotkey.agent.instrument.health;

/** A class the test module names whose weaving fails ({@code hotkey.debug.fail-weaving}). */
public final class Broken {
  private Broken() {}

  public static String answer() {
    return "original";
  }
}
