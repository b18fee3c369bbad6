package io.hotkey.agent.instrument.jedis.v3_0;

import net.bytebuddy.asm.Advice;

/**
 * On every public method of Jedis 3's {@code BinaryJedis} and {@code Jedis}: marks the synchronous
 * API call whose first command may be answered locally ({@link Jedis3Calls}).
 */
public final class Jedis3CallAdvice {
  private Jedis3CallAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void onEnter() {
    Jedis3Calls.enter();
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(@Advice.Thrown Throwable thrown) {
    Jedis3Calls.exit(thrown != null);
  }
}
