package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.idempotency.Route;
import io.hotkey.agent.instrument.webflux.WebFluxBridge;
import io.hotkey.agent.instrument.webflux.WebFluxHelper;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux side of Idempotency-Key handling, and the helpers' entry point. NOT loaded by the
 * agent: {@link WebFluxBridge} defines this package's classes next to Spring's reactive web API, so
 * they may use it and Reactor freely; they reach the engine through {@link WebFluxBridge#engine()}.
 *
 * <p>A request on a configured route is wholly the agent's from here: its body is read (unless its
 * {@code Content-Length} is over max-body: then it passes through unread), the engine decides, and
 * the adapter then runs with an equivalent request (the body handed on) and, for an execution, a
 * {@link CapturingResponse}; or the engine's answer is written and the adapter never runs. A
 * decision that fails (an agent error) passes the request through.
 */
public final class IdempotentExchange implements WebFluxHelper {
  private static final byte[] EMPTY = new byte[0];

  private final Scheduler storeCalls = Schedulers.fromExecutor(WebFluxBridge.storeCalls());

  @Override
  public Object handle(Object adapterObject, Object requestObject, Object responseObject) {
    if (!(adapterObject instanceof HttpHandler)
        || !(requestObject instanceof ServerHttpRequest)
        || !(responseObject instanceof ServerHttpResponse)) {
      return null;
    }
    IdempotencyEngine engine = WebFluxBridge.engine();
    if (engine == null) {
      return null;
    }
    ServerHttpRequest request = (ServerHttpRequest) requestObject;
    HttpMethod httpMethod = request.getMethod();
    URI uri = request.getURI();
    if (httpMethod == null || uri == null) {
      return null;
    }
    String method = httpMethod.name();
    String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
    Route route = engine.route(method, path);
    if (route == null) {
      return null;
    }
    String contentType = request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
    if (contentType != null && contentType.regionMatches(true, 0, "multipart/", 0, 10)) {
      // parts are parsed from the server's own stream by Spring: they are not buffered here
      return null;
    }
    return handled(
        engine,
        route,
        (HttpHandler) adapterObject,
        request,
        (ServerHttpResponse) responseObject,
        new WebFluxRequestHead(request, method, path));
  }

  private Mono<Void> handled(
      IdempotencyEngine engine,
      Route route,
      HttpHandler adapter,
      ServerHttpRequest request,
      ServerHttpResponse response,
      WebFluxRequestHead head) {
    boolean blocks = WebFluxBridge.storeBlocks(engine);
    Mono<Optional<byte[]>> body =
        request.getHeaders().getContentLength() > engine.settings().maxBody()
            ? Mono.just(Optional.empty())
            : DataBufferUtils.join(request.getBody())
                .map(buffer -> Optional.of(drain(buffer)))
                .defaultIfEmpty(Optional.of(EMPTY));
    return body.flatMap(
        bytes ->
            decide(engine, route, head, bytes, blocks)
                .flatMap(
                    decision -> act(adapter, request, response, bytes, decision.orElse(null))));
  }

  private Mono<Optional<Decision>> decide(
      IdempotencyEngine engine,
      Route route,
      WebFluxRequestHead head,
      Optional<byte[]> bytes,
      boolean blocks) {
    Mono<Optional<Decision>> decided =
        Mono.fromCallable(
            () ->
                Optional.of(
                    engine.decide(
                        route,
                        head,
                        limit ->
                            bytes.isPresent() && bytes.get().length <= limit
                                ? bytes.get()
                                : null)));
    if (blocks) {
      decided = decided.subscribeOn(storeCalls).publishOn(Schedulers.parallel());
    }
    return decided.onErrorResume(
        t -> {
          WebFluxBridge.error("deciding", t);
          return Mono.just(Optional.empty());
        });
  }

  private Mono<Void> act(
      HttpHandler adapter,
      ServerHttpRequest request,
      ServerHttpResponse response,
      Optional<byte[]> bytes,
      Decision decision) {
    ServerHttpRequest handedOn =
        bytes.isPresent() ? new BufferedRequest(request, bytes.get()) : request;
    if (decision == null || decision.outcome() == Outcome.PASS) {
      return WebFluxBridge.nested(() -> adapter.handle(handedOn, response));
    }
    HttpAnswer answer = decision.answer();
    if (answer != null) {
      return send(request, response, answer);
    }
    Execution execution = decision.execution();
    CapturingResponse captured;
    try {
      boolean blocks = WebFluxBridge.storeBlocks(WebFluxBridge.engine());
      captured = new CapturingResponse(response, execution, call -> storeCall(call, blocks));
    } catch (Throwable t) {
      execution.fail(ReleaseReason.AGENT_ERROR);
      throw t;
    }
    return WebFluxBridge.nested(() -> adapter.handle(handedOn, captured))
        .doOnSuccess(ignored -> captured.completed())
        .doOnError(t -> captured.failed(ReleaseReason.HANDLER_THREW))
        .doOnCancel(() -> captured.failed(ReleaseReason.NO_RESPONSE));
  }

  /** A store call as a Mono: inline for the memory store, else on the store threads. */
  private Mono<Void> storeCall(Runnable call, boolean blocks) {
    Mono<Void> run = Mono.fromRunnable(call);
    return blocks ? run.subscribeOn(storeCalls).publishOn(Schedulers.parallel()) : run;
  }

  /**
   * Writes an answer the engine made (replay, 400/409/422/503 problem, a token) instead of running
   * the application.
   */
  private static Mono<Void> send(
      ServerHttpRequest request, ServerHttpResponse response, HttpAnswer answer) {
    int status = answer.status();
    byte[] body = answer.body();
    response.setRawStatusCode(status);
    HttpHeaders headers = response.getHeaders();
    for (Map.Entry<String, String> header : answer.headers()) {
      headers.add(header.getKey(), header.getValue());
    }
    boolean bodyless =
        status < 200 || status == 204 || status == 304 || "HEAD".equals(request.getMethod().name());
    if (bodyless || body.length == 0) {
      if (!bodyless) {
        headers.setContentLength(0);
      }
      return response.setComplete();
    }
    headers.setContentLength(body.length);
    return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
  }

  /** The buffer's readable bytes; the buffer is released. */
  private static byte[] drain(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      return bytes;
    } finally {
      DataBufferUtils.release(buffer);
    }
  }
}
