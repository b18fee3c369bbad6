package io.hotkey.agent.core.multiplexed;

/**
 * What the dispatch advice of a multiplexed client does with a command, as {@code
 * RedisHooks.dispatch} or {@code RedisHooks.resumption} decided: {@link #SEND} it to Redis as
 * without the agent ({@link #sends()}); leave it unsent because it is {@link #PARKED} behind a
 * reply on its way (it is answered when resumed, see {@code RedisHooks.commandDone}); or replay a
 * recorded reply into it and complete it ({@link #replay()}). An outcome is a constant, or a
 * subclass that carries what it needs: a replay is the {@link ReplyTape.Cursor} over the reply to
 * replay, so a local answer allocates nothing beyond its walk of the tape. An outcome that sends
 * the command and asks the advice for something more is one more constant or subclass whose {@link
 * #sends()} is true.
 */
public class DispatchOutcome {
  /** Send the command to Redis. */
  public static final DispatchOutcome SEND = new DispatchOutcome(true);

  /**
   * Send the command, and report the server it is written to ({@code RedisHooks.writtenTo}): its
   * reply fills a local entry, stored only if that server reports its keys' changes; or it is a
   * plain SET of a hot key, whose report by that server is expected.
   */
  public static final DispatchOutcome SEND_REPORTING_SERVER = new DispatchOutcome(true);

  /** Do not send the command: it was parked, and will be dispatched again when it is resumed. */
  public static final DispatchOutcome PARKED = new DispatchOutcome(false);

  private final boolean sends;

  DispatchOutcome(boolean sends) {
    this.sends = sends;
  }

  /** Whether the command goes to Redis now: the advice lets the dispatch run. */
  public final boolean sends() {
    return sends;
  }

  /** The reply to replay into the command instead of sending it; null for any other outcome. */
  public final ReplyTape.Cursor replay() {
    return this instanceof ReplyTape.Cursor ? (ReplyTape.Cursor) this : null;
  }
}
