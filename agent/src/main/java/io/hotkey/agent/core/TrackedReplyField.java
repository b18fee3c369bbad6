package io.hotkey.agent.core;

/**
 * A field the agent adds to a client's reply class as the class loads (Lettuce's {@code
 * CommandOutput}), so that a reply carries its own tracking state: asking whether a reply is
 * tracked is then a field read. Without it the answer takes {@code System.identityHashCode}, which
 * for each new reply object leaves compiled code to generate and install the hash, on the
 * connection's I/O thread, for every command. A class loaded before the agent (attached at run
 * time) cannot gain a field; its replies are tracked by identity instead (see {@code
 * multiplexed.TrackedReplies}).
 *
 * <p>Only the agent calls these methods; the names cannot clash with a client's own.
 */
public interface TrackedReplyField {
  /** The field's name in the client's class. */
  String NAME = "hotkey$trackedReply";

  Object hotkey$trackedReply();

  void hotkey$trackedReply(Object tracked);
}
