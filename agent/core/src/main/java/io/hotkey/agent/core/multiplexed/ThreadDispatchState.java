package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.ClassifiedCommand;
import io.hotkey.agent.core.ConnectionState;

/**
 * What one thread that dispatches commands to multiplexed connections keeps: the command being
 * dispatched, the connection it used last, and the parked read it is resuming.
 */
final class ThreadDispatchState {
  /** Where the command being dispatched is classified. */
  final ClassifiedCommand command = new ClassifiedCommand();

  /**
   * The connection this thread dispatched a write or a servable read to last, and its state; holds
   * one object per thread alive.
   */
  Object lastConnection;

  ConnectionState lastState;

  /**
   * A parked read being resumed on this thread (see {@link MultiplexedGateway#resume}), until its
   * dispatch takes it.
   */
  Resumption resumed;

  /** Between {@code resume(read)} and {@code resume(null)}. */
  boolean resuming;
}
