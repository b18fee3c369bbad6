package io.hotkey.agent.instrument.webflux;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into {@code DispatcherHandler.handle(ServerWebExchange)}, typed and linked like {@link
 * WebFluxAdvice}: when the bridge decides the request, the method body is skipped and returns the
 * bridge's {@code Mono<Void>}; otherwise it runs untouched.
 */
public final class WebFluxDispatchAdvice {
  private WebFluxDispatchAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  static Object enter(@Advice.This Object dispatcher, @Advice.Argument(0) Object exchange) {
    return WebFluxBridge.dispatch(dispatcher, exchange);
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
