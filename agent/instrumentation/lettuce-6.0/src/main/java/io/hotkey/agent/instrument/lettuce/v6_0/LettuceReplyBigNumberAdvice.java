package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import java.nio.ByteBuffer;
import net.bytebuddy.asm.Advice;

/** On {@code RedisStateMachine.safeSetBigNumber(output, ByteBuffer)}. */
public final class LettuceReplyBigNumberAdvice {
  private LettuceReplyBigNumberAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.Argument(0) Object output, @Advice.Argument(1) ByteBuffer bytes) {
    RedisHooks.replyBytes(output, bytes, true);
  }
}
