package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * On {@code RedisChannelHandler.dispatch(RedisCommand)}: a command answered locally or parked (see
 * {@code helper.Dispatcher}) skips the method and is returned as the dispatched command, which it
 * still is. Everything else is in the helper, so that this stays small ({@link LettuceHelpers}).
 */
public final class LettuceDispatchAdvice {
  private LettuceDispatchAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static Object onEnter(@Advice.Origin Class<?> handler, @Advice.This Object connection,
      @Advice.Argument(0) Object command) {
    return RedisHooks.active() ? LettuceHelpers.dispatch(handler).dispatch(connection, command) : null;
  }

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(@Advice.Enter Object served,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result) {
    if (served != null) {
      result = served;
    }
  }
}
