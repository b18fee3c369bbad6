package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Route;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/**
 * The request of a configured route as received, with the body the agent read for the fingerprint
 * handed on (none when it was too large to read: then the server's own body is), and what the
 * decision at the dispatcher needs: the engine and route it was matched by, and whether it was
 * decided already.
 */
public final class BufferedRequest extends ServerHttpRequestDecorator {
  private static final DefaultDataBufferFactory BUFFERS = new DefaultDataBufferFactory();

  private final Optional<byte[]> body;
  private final IdempotencyEngine engine;
  private final Route route;
  private final String method;
  private final String path;
  private final AtomicBoolean decided = new AtomicBoolean();

  BufferedRequest(
      ServerHttpRequest request,
      Optional<byte[]> body,
      IdempotencyEngine engine,
      Route route,
      String method,
      String path) {
    super(request);
    this.body = body;
    this.engine = engine;
    this.route = route;
    this.method = method;
    this.path = path;
  }

  /** The buffered request under the filters' decorators of {@code request}, or null. */
  static BufferedRequest in(ServerHttpRequest request) {
    ServerHttpRequest current = request;
    while (current instanceof ServerHttpRequestDecorator) {
      if (current instanceof BufferedRequest) {
        return (BufferedRequest) current;
      }
      current = ((ServerHttpRequestDecorator) current).getDelegate();
    }
    return null;
  }

  /** True for the first caller only: the one that decides this request. */
  boolean takeDecision() {
    return decided.compareAndSet(false, true);
  }

  Optional<byte[]> bytes() {
    return body;
  }

  IdempotencyEngine engine() {
    return engine;
  }

  Route route() {
    return route;
  }

  /** The request as the engine sees it, with the principal the filters authenticated (or null). */
  WebFluxRequestHead head(String principal) {
    return new WebFluxRequestHead(getDelegate(), method, path, principal);
  }

  @Override
  public Flux<DataBuffer> getBody() {
    if (body.isEmpty()) {
      return super.getBody();
    }
    byte[] bytes = body.get();
    return bytes.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(BUFFERS.wrap(bytes)));
  }
}
