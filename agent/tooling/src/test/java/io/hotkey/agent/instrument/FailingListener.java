package io.hotkey.agent.instrument;

/** Fails the test on any weaving failure: the tests' modules are all meant to weave. */
final class FailingListener implements InstrumentationListener {
  @Override
  public void transformed(String typeName, boolean retransformed) {}

  @Override
  public void failed(String typeName, Throwable error) {
    throw new AssertionError(typeName, error);
  }
}
