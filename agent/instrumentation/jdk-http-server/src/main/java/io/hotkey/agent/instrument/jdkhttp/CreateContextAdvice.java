package io.hotkey.agent.instrument.jdkhttp;

import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code sun.net.httpserver.ServerImpl.createContext(..)}, a platform-loader class
 * that cannot see agent classes: so this code references JDK types only and reaches the agent
 * through the system class loader by name. It runs once per context creation, so the reflection
 * costs nothing.
 */
public final class CreateContextAdvice {
  private CreateContextAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  static void exit(@Advice.Return Object context) throws Exception {
    if (context != null) {
      ClassLoader.getSystemClassLoader()
          .loadClass("io.hotkey.agent.instrument.jdkhttp.IdempotencyFilters")
          .getMethod("attach", Object.class)
          .invoke(null, context);
    }
  }
}
