package io.hotkey.agent.instrument.webflux;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.hotkey.agent.instrument.TypeInstrumentation;
import io.hotkey.agent.instrument.TypeTransformer;

/**
 * {@code HttpWebHandlerAdapter.handle(ServerHttpRequest, ServerHttpResponse)}: where the server's
 * request becomes a {@code ServerWebExchange}, before any {@code WebFilter} (Spring Security,
 * Spring Cloud Gateway's routing) runs.
 */
final class HttpWebHandlerAdapterInstrumentation implements TypeInstrumentation {
  static final String ADAPTER = "org.springframework.web.server.adapter.HttpWebHandlerAdapter";

  @Override
  public String typeName() {
    return ADAPTER;
  }

  @Override
  public void transform(TypeTransformer transformer) {
    transformer.applyAdvice(
        named("handle")
            .and(takesArguments(2))
            .and(
                takesArgument(
                    0, named("org.springframework.http.server.reactive.ServerHttpRequest")))
            .and(
                takesArgument(
                    1, named("org.springframework.http.server.reactive.ServerHttpResponse"))),
        WebFluxAdvice.class.getName());
  }
}
