package io.hotkey.agent.core;

/**
 * How the read of one reply from a thread-bound connection ended, as its client adapter tells it.
 */
public enum ReplyOutcome {
  /** Any reply but an error. */
  VALUE,
  /** An error reply: the command was refused, the connection is fine. */
  ERROR,
  /** Nothing could be read: the connection is lost, with every reply it still owed. */
  CONNECTION_LOST
}
