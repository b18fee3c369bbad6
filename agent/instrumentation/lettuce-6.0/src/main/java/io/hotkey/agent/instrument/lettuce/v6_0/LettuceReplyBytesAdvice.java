package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import java.nio.ByteBuffer;
import net.bytebuddy.asm.Advice;

/**
 * On {@code RedisStateMachine.safeSet(output, ByteBuffer)} and {@code safeSetSingle}. One advice
 * per kind of event, so that the decoder's busiest callbacks do not tell their kind by their name.
 */
public final class LettuceReplyBytesAdvice {
  private LettuceReplyBytesAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter(
      @Advice.Argument(0) Object output, @Advice.Argument(1) ByteBuffer bytes) {
    RedisHooks.replyBytes(output, bytes, false);
  }
}
