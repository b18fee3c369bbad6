package io.hotkey.agent.core.multiplexed;

/**
 * What the dispatch advice of a multiplexed client does with a command, as {@code
 * RedisHooks.dispatch} or {@code RedisHooks.resumption} decided: {@link #SEND} it to Redis as
 * without the agent; leave it unsent because it is {@link #PARKED} behind a reply on its way (it is
 * answered when resumed, see {@code RedisHooks.commandDone}); or replay a recorded reply into it
 * and complete it ({@link #replay()}). Each outcome is one constant the advice compares with, or a
 * subclass carrying what that outcome needs: a replay is the {@link ReplyTape.Cursor} over the
 * reply to replay, so a local answer allocates nothing beyond its walk of the tape.
 */
public class DispatchOutcome {
  /** Send the command to Redis. */
  public static final DispatchOutcome SEND = new DispatchOutcome();

  /** Do not send the command: it was parked, and will be dispatched again when it is resumed. */
  public static final DispatchOutcome PARKED = new DispatchOutcome();

  DispatchOutcome() {}

  /** The reply to replay into the command instead of sending it; null for any other outcome. */
  public final ReplyTape.Cursor replay() {
    return this instanceof ReplyTape.Cursor ? (ReplyTape.Cursor) this : null;
  }
}
