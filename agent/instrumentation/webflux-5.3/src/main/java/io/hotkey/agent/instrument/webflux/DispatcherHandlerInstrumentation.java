package io.hotkey.agent.instrument.webflux;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * {@code DispatcherHandler.handle(ServerWebExchange)}: where a request reaches its handler (a
 * controller, a functional route, Spring Cloud Gateway's route) after every {@code WebFilter}, so
 * after Spring Security set the exchange's principal.
 */
final class DispatcherHandlerInstrumentation implements TypeInstrumentation {
  static final String DISPATCHER = "org.springframework.web.reactive.DispatcherHandler";

  @Override
  public String typeName() {
    return DISPATCHER;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("handle")
            .and(takesArguments(1))
            .and(takesArgument(0, named("org.springframework.web.server.ServerWebExchange"))),
        WebFluxDispatchAdvice.class.getName());
  }
}
