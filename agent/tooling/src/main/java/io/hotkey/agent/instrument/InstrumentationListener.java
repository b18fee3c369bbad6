package io.hotkey.agent.instrument;

/** Told about every transformation: for the agent's log and its error count. */
public interface InstrumentationListener {
  /**
   * A class received its advice.
   *
   * @param retransformed the class was loaded before the agent and has been retransformed
   */
  void transformed(String typeName, boolean retransformed);

  void failed(String typeName, Throwable error);
}
