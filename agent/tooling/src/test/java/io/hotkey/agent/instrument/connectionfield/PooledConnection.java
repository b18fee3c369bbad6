package io.hotkey.agent.instrument.connectionfield;

/** A client's connection class, as the test module names it. */
public class PooledConnection {
  public PooledConnection() {}
}
