package io.hotkey.agent.core;

/**
 * A reply answered without Redis: the raw protocol reply (a fresh copy owned by this caller) for
 * the client adapter to decode exactly as it decodes Redis' own replies, and the decoded result the
 * adapter hands back to the application.
 */
public final class ServedReply {
  public final Object raw;
  public Object result;

  public ServedReply(Object raw) {
    this.raw = raw;
  }
}
