package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.FailedReadHooks;
import io.hotkey.agent.core.multiplexed.ReplyTape;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.internal.ExceptionFactory;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.VoidOutput;
import io.lettuce.core.protocol.RedisCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A hot read that fails after it was sent, answered from its key's last value when {@code
 * hotkey.cache.serve-stale-on-error} allows (see {@code FailedReads}): the value is replayed into
 * the command's output and the command completes normally, as one answered at dispatch does. A
 * helper class, defined next to Lettuce like {@link LettuceArguments}.
 */
public final class LettuceStaleAnswers {
  /**
   * Lettuce's own output that keeps nothing (for fire-and-forget commands, one instance for all):
   * where the late reply of a read answered stale goes. A Lettuce without it (before 6.0.2) fails
   * to initialize this class, and then no read is ever answered stale after it was sent.
   *
   * <p>An {@code Object}: this class is linked as it is defined, while a Lettuce class is being
   * transformed, and storing a {@code VoidOutput} where a {@code CommandOutput} is expected would
   * make the verifier load {@code CommandOutput} then, without the field the agent gives it.
   */
  private static final Object DISCARDED = VoidOutput.create();

  private LettuceStaleAnswers() {}

  /** Where the decoder writes a reply that must reach nothing: a {@code CommandOutput}. */
  public static Object discardedReply() {
    return DISCARDED;
  }

  /**
   * {@code command} is being failed with {@code failure}: true if it was answered instead (then it
   * has completed, or is completing on the thread that answered it, normally, and the failure must
   * not go on).
   */
  public static boolean answer(RedisCommand<?, ?, ?> command, Throwable failure) {
    if (!onConnection(failure) || !FailedReadHooks.servesStale()) {
      return false;
    }
    CommandOutput<?, ?, ?> output = command.getOutput();
    ReplyTape.Cursor tape = FailedReadHooks.staleAnswer(output, failure);
    if (tape == null) {
      // answered at the same instant on the other path (the sync wait or the expiry timer), which
      // completes it normally: this failure must not reach the command first
      return FailedReadHooks.answeredStale(output);
    }
    try {
      LettuceReplay.into(output, tape);
    } catch (RuntimeException e) {
      // the output refused the value as it would have refused the same reply from Redis: the read
      // fails as it would have without the agent
      return false;
    }
    command.complete();
    return true;
  }

  /**
   * {@code Futures.awaitOrCancel}, the sync API's wait, for a read that could be answered stale:
   * waits as it does, and on a timeout answers the read if it still may be, so that it completes
   * instead of being cancelled. Returns null to let {@code awaitOrCancel} run (it then finds the
   * command done and returns or throws at once, or waits as usual for any other command); else the
   * command was cancelled and the timeout returned is what {@code awaitOrCancel} would have thrown.
   */
  public static RedisCommandTimeoutException awaitOrAnswer(
      RedisFuture<?> future, long timeout, TimeUnit unit) {
    if (timeout <= 0
        || !(future instanceof RedisCommand)
        || !FailedReadHooks.servesStale()
        || !FailedReadHooks.staleAnswerable(((RedisCommand<?, ?, ?>) future).getOutput())) {
      return null;
    }
    try {
      if (future.await(timeout, unit)) {
        return null;
      }
    } catch (InterruptedException e) {
      // awaitOrCancel's own wait sees the interrupt and fails as it does
      Thread.currentThread().interrupt();
      return null;
    }
    RedisCommandTimeoutException timedOut =
        ExceptionFactory.createTimeoutException(Duration.ofNanos(unit.toNanos(timeout)));
    if (answer((RedisCommand<?, ?, ?>) future, timedOut) || future.isDone()) {
      return null;
    }
    future.cancel(true);
    return timedOut;
  }

  /** A timeout, or the connection failing under the command. */
  private static boolean onConnection(Throwable failure) {
    return failure instanceof RedisCommandTimeoutException
        || failure instanceof RedisConnectionException
        || failure instanceof IOException
        // what a connection that neither reconnects nor queues while disconnected fails the
        // commands in flight with when it drops (an application's close is "Connection closed")
        || (failure != null
            && failure.getClass() == RedisException.class
            && "Connection disconnected".equals(failure.getMessage()));
  }
}
