package io.hotkey.agent.instrument.webflux;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into {@code HttpWebHandlerAdapter.handle(ServerHttpRequest, ServerHttpResponse)}. It
 * types everything as {@code Object} and links only against {@link WebFluxBridge}, which the system
 * class loader defines, so the application's loader reaches it. When the bridge takes the request,
 * the method body is skipped and returns the bridge's {@code Mono<Void>} instead; otherwise it runs
 * untouched.
 */
public final class WebFluxAdvice {
  private WebFluxAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  static Object enter(
      @Advice.This Object adapter,
      @Advice.Argument(0) Object request,
      @Advice.Argument(1) Object response) {
    return WebFluxBridge.enter(adapter, request, response);
  }

  @Advice.OnMethodExit(suppress = Throwable.class)
  static void exit(
      @Advice.Enter Object handled,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
    if (handled != null) {
      returned = handled;
    }
  }
}
