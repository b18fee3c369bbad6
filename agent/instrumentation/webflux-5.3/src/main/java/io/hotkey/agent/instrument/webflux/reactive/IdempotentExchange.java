package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.idempotency.Route;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.hotkey.agent.instrument.webflux.WebFluxBridge;
import io.hotkey.agent.instrument.webflux.WebFluxHelper;
import java.net.URI;
import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux side of Idempotency-Key handling, and the helpers' entry point. NOT loaded by the
 * agent: {@link WebFluxBridge} defines this package's classes next to Spring's reactive web API, so
 * they may use it and Reactor freely; they reach the engine through {@link WebFluxBridge#engine()}.
 *
 * <p>A request on a configured route is the agent's in two steps. At the adapter, before any {@code
 * WebFilter}: its body is read (unless its {@code Content-Length} is over max-body: then it passes
 * through unread) and the adapter runs with a {@link BufferedRequest} (the body handed on), so the
 * filters and the exchange's form data see the same body. At the dispatcher, after the filters: the
 * engine decides, with the exchange's principal, and the dispatcher then runs with the exchange
 * (for an execution, with a {@link CapturingResponse}); or the engine's answer is written and the
 * dispatcher never runs. A request a filter answers itself (Spring Security's 401) never reaches
 * the dispatcher and is not decided. A decision that fails (an agent error) passes the request
 * through.
 */
public final class IdempotentExchange implements WebFluxHelper {
  private static final byte[] EMPTY = new byte[0];

  /** Threads for store calls; enough for many round trips in flight to a slow store. */
  private static final int STORE_THREADS = 16;

  /** Store calls waiting for a thread; beyond this a request passes through (an agent error). */
  private static final int STORE_QUEUE = 4096;

  private static final int STORE_THREAD_IDLE_SECONDS = 30;

  /**
   * Set on the store threads, by which a store call knows it is on one already. Not their thread
   * group: a thread made on a store thread (Reactor's parallel scheduler, first used by a handler
   * running there) would inherit that.
   */
  private static final ThreadLocal<Boolean> ON_STORE_THREAD = new ThreadLocal<>();

  private static final AtomicInteger STORE_THREAD_COUNT = new AtomicInteger();

  /**
   * Where store calls that may wait on I/O run: a bounded elastic scheduler of Reactor's, whose
   * hand-off from an event loop Reactor's own BlockHound integration accepts (a plain pool's queue
   * lock parks the event loop when contended). One per application, as this class is.
   */
  private static final Scheduler STORE_CALLS =
      Schedulers.newBoundedElastic(
          STORE_THREADS,
          STORE_QUEUE,
          task -> {
            Thread thread =
                new Thread(
                    () -> {
                      ON_STORE_THREAD.set(Boolean.TRUE);
                      task.run();
                    },
                    "hotkey-idempotency-store-" + STORE_THREAD_COUNT.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          },
          STORE_THREAD_IDLE_SECONDS);

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
    HttpHandler adapter = (HttpHandler) adapterObject;
    ServerHttpResponse response = (ServerHttpResponse) responseObject;
    Mono<Optional<byte[]>> body =
        request.getHeaders().getContentLength() > engine.settings().maxBody()
            ? Mono.just(Optional.empty())
            : DataBufferUtils.join(request.getBody())
                .map(buffer -> Optional.of(drain(buffer)))
                .defaultIfEmpty(Optional.of(EMPTY));
    return body.flatMap(
        bytes ->
            WebFluxBridge.nested(
                () ->
                    adapter.handle(
                        new BufferedRequest(request, bytes, engine, route, method, path),
                        response)));
  }

  /** {@link #decide}'s hand-off: the decision was taken by the request. */
  private static final Object TAKEN = new Object();

  /** {@link #decide}'s hand-off: the request went away first. */
  private static final Object CANCELLED = new Object();

  @Override
  public Object dispatch(Object dispatcherObject, Object exchangeObject) {
    if (!(dispatcherObject instanceof WebHandler)
        || !(exchangeObject instanceof ServerWebExchange)) {
      return null;
    }
    ServerWebExchange exchange = (ServerWebExchange) exchangeObject;
    BufferedRequest buffered = BufferedRequest.in(exchange.getRequest());
    if (buffered == null || !buffered.takeDecision()) {
      return null;
    }
    WebHandler dispatcher = (WebHandler) dispatcherObject;
    IdempotencyEngine engine = buffered.engine();
    AsyncRecordStore eventLoopCalls = eventLoopCalls(engine, exchange.getRequest());
    boolean blocks = eventLoopCalls == null && WebFluxBridge.storeBlocks(engine);
    return exchange
        .<Principal>getPrincipal()
        .map(principal -> Optional.ofNullable(principal.getName()))
        .defaultIfEmpty(Optional.empty())
        .flatMap(
            principal ->
                eventLoopCalls != null
                    ? decide(engine, buffered, principal.orElse(null), eventLoopCalls)
                    : decide(engine, buffered, principal.orElse(null)))
        .onErrorResume(
            t -> {
              // undecided rather than decided without its caller: the request passes through
              WebFluxBridge.error("reading the principal", t);
              return Mono.just(Optional.empty());
            })
        .flatMap(decision -> act(dispatcher, exchange, decision.orElse(null), blocks));
  }

  /**
   * The redis store over a connection of the event loop serving the request, or null (another
   * store, another server than Reactor Netty, a Spring before 5.3.3): then the blocking store.
   */
  private static AsyncRecordStore eventLoopCalls(
      IdempotencyEngine engine, ServerHttpRequest request) {
    try {
      return WebFluxBridge.eventLoopCalls(
          engine, ServerHttpRequestDecorator.getNativeRequest(request), STORE_CALLS::schedule);
    } catch (IllegalArgumentException notWrappingANativeRequest) {
      return null;
    } catch (Throwable t) {
      WebFluxBridge.error("finding the event loop's store connection (calls leave the loop)", t);
      return null;
    }
  }

  /**
   * Decides through the event loop's connection: the store's reply arrives on the loop serving the
   * request, and the request carries on there.
   */
  private Mono<Optional<Decision>> decide(
      IdempotencyEngine engine,
      BufferedRequest buffered,
      String principal,
      AsyncRecordStore calls) {
    Optional<byte[]> bytes = buffered.bytes();
    return Mono.defer(
        () -> {
          CompletionStage<Decision> decision;
          try {
            decision =
                engine.decide(
                    buffered.route(),
                    buffered.head(principal),
                    limit -> bytes.isPresent() && bytes.get().length <= limit ? bytes.get() : null,
                    calls);
          } catch (Throwable t) {
            WebFluxBridge.error("deciding (the request passes through)", t);
            return Mono.just(Optional.<Decision>empty());
          }
          // a client gone while the claim is on its way cancels this before the decision is used:
          // whichever of the two ends last releases the claim the decision holds
          AtomicReference<Object> handOff = new AtomicReference<>();
          decision.whenComplete(
              (made, error) -> {
                if (made != null
                    && !handOff.compareAndSet(null, made)
                    && handOff.get() == CANCELLED) {
                  releaseUnused(made);
                }
              });
          // Reactor 3.5+ cancels the stage it was given: a copy, so the claim's own stage still
          // completes and the hand-off above still sees it
          return Mono.fromCompletionStage(decision.thenApply(made -> made))
              .flatMap(
                  made ->
                      handOff.compareAndSet(null, TAKEN) || handOff.compareAndSet(made, TAKEN)
                          ? Mono.just(Optional.of(made))
                          : Mono.<Optional<Decision>>empty())
              .doOnCancel(
                  () -> {
                    Object settled = handOff.getAndSet(CANCELLED);
                    if (settled instanceof Decision) {
                      releaseUnused((Decision) settled);
                    }
                  })
              .onErrorResume(
                  t -> {
                    WebFluxBridge.error("deciding (the request passes through)", t);
                    return Mono.just(Optional.empty());
                  });
        });
  }

  /** A decision that no request will act on: its claim, if it made one, is released. */
  private static void releaseUnused(Decision decision) {
    try {
      Execution execution = decision.execution();
      if (execution != null) {
        execution.fail(ReleaseReason.NO_RESPONSE);
      }
    } catch (Throwable t) {
      WebFluxBridge.error("releasing the claim of a request that went away", t);
    }
  }

  private Mono<Optional<Decision>> decide(
      IdempotencyEngine engine, BufferedRequest buffered, String principal) {
    Optional<byte[]> bytes = buffered.bytes();
    return onStoreThread(
            Mono.<Optional<Decision>>fromSupplier(
                () -> {
                  try {
                    return Optional.of(
                        engine.decide(
                            buffered.route(),
                            buffered.head(principal),
                            limit ->
                                bytes.isPresent() && bytes.get().length <= limit
                                    ? bytes.get()
                                    : null));
                  } catch (Throwable t) {
                    // caught here: Reactor would rethrow a LinkageError, hanging the request
                    WebFluxBridge.error("deciding (the request passes through)", t);
                    return Optional.empty();
                  }
                }),
            WebFluxBridge.storeBlocks(engine))
        .onErrorResume(
            t -> {
              // the store threads' queue is full: the request passes through
              WebFluxBridge.error("handing a decision to the store threads", t);
              return Mono.just(Optional.empty());
            });
  }

  /**
   * @param blocks whether the execution's store calls wait on I/O (the blocking redis store), and
   *     so run on a store thread
   */
  private Mono<Void> act(
      WebHandler dispatcher, ServerWebExchange exchange, Decision decision, boolean blocks) {
    if (decision == null || decision.outcome() == Outcome.PASS) {
      return dispatcher.handle(exchange);
    }
    HttpAnswer answer = decision.answer();
    if (answer != null) {
      try {
        return send(exchange.getRequest(), exchange.getResponse(), answer);
      } catch (Throwable t) {
        return Mono.error(new IllegalStateException("writing the engine's answer", t));
      }
    }
    Execution execution = decision.execution();
    CapturingResponse captured;
    ServerWebExchange capturing;
    try {
      captured =
          new CapturingResponse(exchange.getResponse(), execution, call -> storeCall(call, blocks));
      capturing = exchange.mutate().response(captured).build();
    } catch (Throwable t) {
      // returned, not thrown: this may run in a store's completion, where a thrown LinkageError
      // would be swallowed and the request never answered
      execution.fail(ReleaseReason.AGENT_ERROR);
      return Mono.error(new IllegalStateException("following the response", t));
    }
    return dispatcher
        .handle(capturing)
        .then(Mono.defer(captured::completed))
        .onErrorResume(t -> captured.failed(ReleaseReason.HANDLER_THREW).then(Mono.error(t)))
        .doOnCancel(captured::cancelled);
  }

  /**
   * A store call as a Mono, where {@link #onStoreThread} runs it, done when its stage is. Whatever
   * it throws or fails with is the agent's failure, recorded and swallowed: the response goes on
   * (without being stored) rather than hanging, as a LinkageError that Reactor rethrows on the
   * thread would leave it.
   */
  static Mono<Void> storeCall(Supplier<CompletionStage<Void>> call, boolean blocks) {
    return onStoreThread(
        Mono.defer(
            () -> {
              CompletionStage<Void> done;
              try {
                done = call.get();
              } catch (Throwable t) {
                WebFluxBridge.error("a store call", t);
                return Mono.<Void>empty();
              }
              return Mono.fromCompletionStage(done)
                  .onErrorResume(
                      t -> {
                        WebFluxBridge.error("a store call", t);
                        return Mono.empty();
                      });
            }),
        blocks);
  }

  /**
   * {@code call} run inline when the store never blocks (the memory store) or this thread is a
   * store thread already; otherwise on a store thread, where the request then carries on: the
   * dispatcher after a claim, the server's write after a completion (which Reactor Netty hands to
   * the channel's event loop itself). Each hand-off between threads costs a request more than a
   * Redis round trip on loopback, so there is one each way and no more.
   */
  static <T> Mono<T> onStoreThread(Mono<T> call, boolean blocks) {
    if (!blocks) {
      return call;
    }
    return Mono.defer(() -> isStoreThread() ? call : call.subscribeOn(STORE_CALLS));
  }

  static boolean isStoreThread() {
    return ON_STORE_THREAD.get() != null;
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
