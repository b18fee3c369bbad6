package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.cache.Resumption;
import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.RedisCommand;
import net.bytebuddy.asm.Advice;

/**
 * On the innermost {@code Command}'s {@code complete()}, {@code completeExceptionally} and {@code
 * cancel()}: every wrapper (AsyncCommand, the reactive subscription, cluster, tracing) ends there,
 * so whatever a command that got no reply left tracked is released. Reads parked behind this
 * command are resumed here, after its own caller was answered, as Redis would have answered them:
 * each is dispatched again on its connection, where the dispatch advice replays the answer into it
 * or, without one, lets it go to Redis. A read whose caller gave up meanwhile (cancelled, timed
 * out) is left alone; one that cannot be dispatched fails with the reason, as its first dispatch
 * would have.
 */
public final class LettuceCommandDoneAdvice {
  private LettuceCommandDoneAdvice() {}

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  @SuppressWarnings({"rawtypes", "unchecked"})
  public static void onExit(@Advice.FieldValue("output") Object output) {
    for (Resumption read : RedisHooks.commandDone(output)) {
      RedisCommand parked = (RedisCommand) read.command();
      if (parked.isDone()) {
        continue;
      }
      RedisHooks.resume(read);
      try {
        ((StatefulConnection) read.connection()).dispatch(parked);
      } catch (Throwable t) {
        parked.completeExceptionally(t);
      } finally {
        RedisHooks.resume(null);
      }
    }
  }
}
