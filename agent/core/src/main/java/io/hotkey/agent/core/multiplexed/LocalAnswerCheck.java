package io.hotkey.agent.core.multiplexed;

/**
 * Whether a read on a connection may be answered locally now, as the client's adapter knows it (a
 * closed connection, or one without a channel, would not write the read to Redis). {@link
 * MultiplexedGateway} asks only for a read of hot keys, before it looks the read up, and for a
 * plain SET of one, before it expects tracking's report of it: other writes, and reads of keys that
 * are not hot, pay nothing for it.
 */
public interface LocalAnswerCheck {
  /**
   * Nothing on this call is answered locally, nor are its writes expected back from tracking
   * (Pub/Sub connections, batches, commands written around dispatch).
   */
  LocalAnswerCheck NEVER = connection -> false;

  /** Any connection may be answered (a client without a notion of a connection that is down). */
  LocalAnswerCheck ALWAYS = connection -> true;

  /** Whether a read {@code connection} is dispatching may be answered without sending it. */
  boolean mayAnswerLocally(Object connection);
}
