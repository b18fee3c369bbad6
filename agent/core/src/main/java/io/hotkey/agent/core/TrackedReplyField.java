package io.hotkey.agent.core;

/**
 * A field the agent adds to a client's reply class as the class loads (Lettuce's {@code
 * CommandOutput}), so that a reply carries its own tracking state: asking whether a reply is
 * tracked, which the multiplexed gateway does for every reply event, is then a field read instead
 * of an identity hash of a fresh object on the connection's I/O thread. A class loaded before the
 * agent (attached at run time) cannot gain a field; its replies are tracked by identity instead
 * (see {@code multiplexed.TrackedReplies}). Instrumentation implements it, so it sits next to
 * {@link RedisHooks}.
 *
 * <p>Only the agent calls these methods; the names cannot clash with a client's own.
 */
public interface TrackedReplyField {
  /** The field's name in the client's class. */
  String NAME = "hotkey$trackedReply";

  Object hotkey$trackedReply();

  void hotkey$trackedReply(Object tracked);
}
