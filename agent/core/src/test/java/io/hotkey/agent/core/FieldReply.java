package io.hotkey.agent.core;

/**
 * A reply object as the agent leaves Lettuce's {@code CommandOutput}: with a {@link
 * TrackedReplyField}.
 */
public final class FieldReply implements TrackedReplyField {
  private volatile Object tracked;

  @Override
  public Object hotkey$trackedReply() {
    return tracked;
  }

  @Override
  public void hotkey$trackedReply(Object tracked) {
    this.tracked = tracked;
  }
}
