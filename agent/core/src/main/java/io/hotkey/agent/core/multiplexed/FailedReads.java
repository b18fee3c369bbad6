package io.hotkey.agent.core.multiplexed;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hotkey.agent.cache.CachedReply;
import io.hotkey.agent.cache.NearCache;
import io.hotkey.agent.core.StaleAnswers;
import java.util.List;

/**
 * Hot reads of multiplexed connections that fail after {@link MultiplexedGateway#dispatch} sent or
 * parked them: a timeout (Redis hung, a network stall) or a connection error (a read in flight when
 * the connection went away). With {@code hotkey.cache.serve-stale-on-error}, such a read is
 * answered with the key's last value instead, by the same rules as a read dispatched while its
 * connection has no channel (see {@link NearCache#stale}), unless its reply has started to arrive.
 *
 * <p>A command answered this way may still be waiting in the connection's queue of replies: when
 * Redis wakes up, its reply arrives after all. The decoder must then write it somewhere else than
 * the reply object the application now holds ({@link #replyDiscarded}).
 */
public final class FailedReads {
  private final TrackedReplies tracked;
  private final NearCache cache;

  /**
   * Replies of reads answered stale once their tracking ended: weak, as a late reply may not come.
   */
  private final Cache<Object, Boolean> answeredStale = Caffeine.newBuilder().weakKeys().build();

  FailedReads(TrackedReplies tracked, NearCache cache) {
    this.tracked = tracked;
    this.cache = cache;
  }

  /** Whether any read is ever answered here: the adapter skips asking otherwise. */
  public boolean servesStale() {
    return cache.servesStale();
  }

  /**
   * The read that owns {@code reply} failed ({@code why}): the key's last value to replay into it
   * before the adapter completes it normally, or null to let the failure through.
   */
  public ReplyTape.Cursor answer(Object reply, Object why) {
    TrackedReply t = reply == null ? null : tracked.get(reply);
    CachedReply stale = t == null ? null : t.answerStale();
    if (stale == null) {
      return null;
    }
    // before the command's end stops tracking the reply: the decoder asks one or the other
    answeredStale.put(reply, Boolean.TRUE);
    StaleAnswers.logged(why);
    return new ReplyTape.Cursor((List<?>) stale.shared());
  }

  /**
   * Whether this reply's read was answered stale: a second path failing it at the same instant (the
   * expiry timer and the sync wait) must leave it to the first, which completes it.
   */
  public boolean answeredStale(Object reply) {
    return reply != null && answeredStale.getIfPresent(reply) != null;
  }

  /** Whether {@link #answer} would answer this reply's read if it failed now. */
  public boolean answerable(Object reply) {
    TrackedReply t = reply == null ? null : tracked.get(reply);
    return t != null && t.answerableStale();
  }

  /**
   * The decoder is about to write a reply into {@code reply}: whether it must go nowhere instead,
   * because the read was answered stale. From this call on, a read that was not never is.
   *
   * @param commandDone whether the reply's command has ended: only then can it have been answered
   */
  public boolean replyDiscarded(Object reply, boolean commandDone) {
    TrackedReply t = tracked.get(reply);
    if (t != null) {
      return !t.decoderMayWrite();
    }
    return commandDone && answeredStale.getIfPresent(reply) != null;
  }
}
