package io.hotkey.agent.instrument.webflux;

/**
 * The entry point of the helpers injected next to Spring's reactive web API, through which {@link
 * WebFluxBridge} hands them a request.
 */
public interface WebFluxHelper {
  /**
   * Returns the {@code Mono<Void>} that handles this request instead of {@code adapter.handle}, or
   * null when the request is not on a configured route and passes through untouched.
   */
  Object handle(Object adapter, Object request, Object response);
}
