package io.hotkey.agent.core;

import io.hotkey.agent.core.multiplexed.FailedReads;
import io.hotkey.agent.core.multiplexed.MultiplexedGateway;
import io.hotkey.agent.core.multiplexed.ReplyTape;

/**
 * The entry points, as in {@link RedisHooks}, for a multiplexed client's hot reads that fail after
 * they were sent (see {@link FailedReads}): each a no-op until the agent is active, none lets a
 * failure escape, and each answers "do nothing" until {@code hotkey.cache.serve-stale-on-error} is
 * set.
 */
public final class FailedReadHooks {
  private FailedReadHooks() {}

  /** Whether a failed read can ever be answered: the adapter asks nothing more otherwise. */
  public static boolean servesStale() {
    MultiplexedGateway g = RedisHooks.multiplexed();
    return g != null && g.failedReads().servesStale();
  }

  /**
   * The read that owns {@code reply} failed ({@code why}): what to replay into it before completing
   * it normally, or null to let the failure through.
   */
  public static ReplyTape.Cursor staleAnswer(Object reply, Object why) {
    MultiplexedGateway g = RedisHooks.multiplexed();
    if (g == null) {
      return null;
    }
    try {
      return g.failedReads().answer(reply, why);
    } catch (Throwable t) {
      g.errors().record("stale answer", t);
      return null;
    }
  }

  /** Whether the read that owns {@code reply} was answered stale (see {@code FailedReads}). */
  public static boolean answeredStale(Object reply) {
    MultiplexedGateway g = RedisHooks.multiplexed();
    if (g == null) {
      return false;
    }
    try {
      return g.failedReads().answeredStale(reply);
    } catch (Throwable t) {
      g.errors().record("stale answer", t);
      return false;
    }
  }

  /** Whether the read that owns {@code reply} would be answered if it failed now. */
  public static boolean staleAnswerable(Object reply) {
    MultiplexedGateway g = RedisHooks.multiplexed();
    if (g == null) {
      return false;
    }
    try {
      return g.failedReads().answerable(reply);
    } catch (Throwable t) {
      g.errors().record("stale answer", t);
      return false;
    }
  }

  /**
   * The decoder is about to write a reply into {@code reply}: true if it must write it nowhere, as
   * the read was answered stale.
   */
  public static boolean replyDiscarded(Object reply, boolean commandDone) {
    MultiplexedGateway g = RedisHooks.multiplexed();
    if (g == null) {
      return false;
    }
    try {
      return g.failedReads().replyDiscarded(reply, commandDone);
    } catch (Throwable t) {
      g.errors().record("stale answer", t);
      return false;
    }
  }
}
