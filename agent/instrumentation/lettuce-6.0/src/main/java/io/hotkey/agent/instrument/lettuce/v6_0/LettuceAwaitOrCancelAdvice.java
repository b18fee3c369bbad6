package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.asm.Advice;

/**
 * On {@code io.lettuce.core.internal.Futures.awaitOrCancel(RedisFuture, long, TimeUnit)}, where the
 * sync API waits for every command (standalone and cluster): it cancels a command that times out,
 * before the expiry timer would fail it. A hot read that may be answered stale is waited for here
 * instead ({@link LettuceStaleAnswers#awaitOrAnswer}), so that its timeout is answered with the
 * key's last value; a timeout that is not is thrown as {@code awaitOrCancel} throws it. Any other
 * command runs through {@code awaitOrCancel} untouched.
 */
public final class LettuceAwaitOrCancelAdvice {
  private LettuceAwaitOrCancelAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static RedisCommandTimeoutException onEnter(
      @Advice.Argument(0) RedisFuture<?> command,
      @Advice.Argument(1) long timeout,
      @Advice.Argument(2) TimeUnit unit) {
    return LettuceStaleAnswers.awaitOrAnswer(command, timeout, unit);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter RedisCommandTimeoutException timedOut,
      @Advice.Thrown(readOnly = false) Throwable thrown) {
    if (timedOut != null) {
      thrown = timedOut;
    }
  }
}
