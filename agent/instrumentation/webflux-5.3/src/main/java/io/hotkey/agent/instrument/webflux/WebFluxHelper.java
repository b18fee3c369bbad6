package io.hotkey.agent.instrument.webflux;

/**
 * The entry points of the helpers injected next to Spring's reactive web API, through which {@link
 * WebFluxBridge} hands them a request.
 */
public interface WebFluxHelper {
  /**
   * Returns the {@code Mono<Void>} that handles this request instead of {@code adapter.handle} (its
   * body read, then the adapter run with it), or null when the request is not on a configured route
   * and passes through untouched.
   */
  Object handle(Object adapter, Object request, Object response);

  /**
   * Returns the {@code Mono<Void>} that handles this exchange instead of {@code dispatcher.handle}:
   * decided with the exchange's principal, then answered or dispatched; or null when {@link
   * #handle} did not take its request, or this exchange's request was decided already.
   */
  Object dispatch(Object dispatcher, Object exchange);
}
