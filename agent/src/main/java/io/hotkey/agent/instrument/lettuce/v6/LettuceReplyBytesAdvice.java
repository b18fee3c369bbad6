package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import java.nio.ByteBuffer;
import net.bytebuddy.asm.Advice;

/** On {@code RedisStateMachine.safeSet(output, ByteBuffer)}, {@code safeSetSingle}, {@code safeSetBigNumber}, {@code safeSetError}. */
public final class LettuceReplyBytesAdvice {
  private LettuceReplyBytesAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(@Advice.Origin("#m") String method, @Advice.Argument(0) Object output,
      @Advice.Argument(1) ByteBuffer bytes) {
    RedisHooks.replyBytes(output, method, bytes);
  }
}
