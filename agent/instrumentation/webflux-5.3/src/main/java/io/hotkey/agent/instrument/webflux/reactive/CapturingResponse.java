package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.BodyCapture;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.instrument.webflux.WebFluxBridge;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response of an execution. A body written in one piece ({@code writeWith(Mono)}, as Spring's
 * encoders write a single value) is handed to the engine before it goes to the server, so a client
 * that has the answer finds it stored. A body written as a stream passes through as written, a copy
 * kept up to max-body, and is handed over as its declared {@code Content-Length} is reached, before
 * its last bytes go out (a gateway's proxied answer declares one), or else once written; {@code
 * writeAndFlushWith} (server-sent events and other flushed streams) is never stored. A response
 * completed without a body ({@code setComplete}, or the dispatcher completing without a write) is
 * handed over with an empty one. The chain ending in an error or cancelled (the client went away)
 * before any of these releases the claim.
 */
public final class CapturingResponse extends ServerHttpResponseDecorator {
  private static final byte[] EMPTY = new byte[0];

  /**
   * {@code getRawStatusCode()}, up to Spring 6 (an {@code Integer}); null on Spring 7, which
   * removed it: there the status is {@link #STATUS_CODE}'s {@link #STATUS_VALUE}. No one call links
   * on every version, so they are found once, by name, in the application's Spring.
   */
  private static final MethodHandle RAW_STATUS =
      find(ServerHttpResponse.class, "getRawStatusCode", "java.lang.Integer");

  /** Spring 6 and 7's {@code getStatusCode()}, returning an {@code HttpStatusCode}. */
  private static final MethodHandle STATUS_CODE =
      find(ServerHttpResponse.class, "getStatusCode", "org.springframework.http.HttpStatusCode");

  /** {@code HttpStatusCode.value()}. */
  private static final MethodHandle STATUS_VALUE =
      find(type("org.springframework.http.HttpStatusCode"), "value", int.class.getName());

  private final Execution execution;

  /** Runs a store call where it may (inline, or off the event loop), as a Mono. */
  private final Function<Supplier<CompletionStage<Void>>, Mono<Void>> storeCall;

  CapturingResponse(
      ServerHttpResponse response,
      Execution execution,
      Function<Supplier<CompletionStage<Void>>, Mono<Void>> storeCall) {
    super(response);
    this.execution = execution;
    this.storeCall = storeCall;
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
    if (execution.ended()) {
      return super.writeWith(body);
    }
    if (body instanceof Mono) {
      return Mono.from(body)
          .map(Optional::of)
          .defaultIfEmpty(Optional.empty())
          .flatMap(
              buffer -> {
                byte[] bytes = buffer.isPresent() ? drain(buffer.get()) : EMPTY;
                return storeCall
                    .apply(() -> finish(bytes, true))
                    .then(
                        Mono.defer(
                            () ->
                                super.writeWith(
                                    bytes.length == 0
                                        ? Mono.empty()
                                        : Mono.just(bufferFactory().wrap(bytes)))));
              });
    }
    BodyCapture capture = new BodyCapture(execution.maxBody());
    long declared = getHeaders().getContentLength();
    AtomicLong written = new AtomicLong();
    Flux<DataBuffer> copied =
        Flux.from(body)
            .concatMap(
                buffer -> {
                  int length = buffer.readableByteCount();
                  copyInto(capture, buffer);
                  if (declared < 0 || written.addAndGet(length) != declared) {
                    return Mono.just(buffer);
                  }
                  // the declared length is reached: handed over before its last bytes go out,
                  // so a client that has the whole answer finds it stored (or released)
                  return handOver(capture)
                      .then(Mono.just(buffer))
                      .doOnError(t -> DataBufferUtils.release(buffer));
                });
    return super.writeWith(copied).then(Mono.defer(() -> handOver(capture)));
  }

  /** Hands the copied body over unless the answer was handed over already. */
  private Mono<Void> handOver(BodyCapture capture) {
    if (execution.ended()) {
      return Mono.empty();
    }
    byte[] bytes;
    synchronized (capture) {
      bytes = capture.bytes();
    }
    return storeCall.apply(() -> finish(bytes == null ? EMPTY : bytes, bytes != null));
  }

  @Override
  public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
    if (execution.ended()) {
      return super.writeAndFlushWith(body);
    }
    return super.writeAndFlushWith(body)
        .then(Mono.defer(() -> storeCall.apply(() -> finish(EMPTY, false))));
  }

  @Override
  public Mono<Void> setComplete() {
    if (execution.ended()) {
      return super.setComplete();
    }
    return storeCall.apply(() -> finish(EMPTY, true)).then(Mono.defer(super::setComplete));
  }

  /**
   * The dispatcher's chain completed without writing: the adapter completes the response as it
   * stands, so that is the answer, handed over first. A response committed past this decorator was
   * never seen: its claim is released.
   */
  Mono<Void> completed() {
    if (execution.ended()) {
      return Mono.empty();
    }
    if (getDelegate().isCommitted()) {
      return failed(ReleaseReason.NO_RESPONSE);
    }
    return storeCall.apply(() -> finish(EMPTY, true));
  }

  /**
   * The chain failed: the claim is released before the error goes on to the error handlers, so a
   * client that has their answer finds the key free. A failed release is an agent error.
   */
  Mono<Void> failed(ReleaseReason why) {
    if (execution.ended()) {
      return Mono.empty();
    }
    return storeCall
        .apply(() -> execution.fail(why))
        .onErrorResume(
            t -> {
              WebFluxBridge.error("releasing a claim", t);
              return Mono.empty();
            });
  }

  /** The chain was cancelled (the client went away): the claim is released in the background. */
  void cancelled() {
    failed(ReleaseReason.NO_RESPONSE).subscribe();
  }

  /**
   * Hands the answer to the engine; if reading the status or headers fails (a Spring this agent
   * does not link against), the claim is released and the response goes out unstored.
   */
  private CompletionStage<Void> finish(byte[] body, boolean whole) {
    Integer status;
    List<Map.Entry<String, String>> headers;
    try {
      status = rawStatus();
      headers = headers();
    } catch (Throwable t) {
      WebFluxBridge.error("reading the response (its claim is released)", t);
      return execution.fail(ReleaseReason.AGENT_ERROR);
    }
    return execution.finish(status == null ? 200 : status, headers, body, whole);
  }

  /** The status set so far, or null. */
  private Integer rawStatus() {
    try {
      if (RAW_STATUS != null) {
        return (Integer) RAW_STATUS.invoke((ServerHttpResponse) this);
      }
      Object code = STATUS_CODE.invoke((ServerHttpResponse) this);
      return code == null ? null : (Integer) (int) STATUS_VALUE.invoke(code);
    } catch (Throwable t) {
      throw new IllegalStateException("reading the response status", t);
    }
  }

  /** A public method of {@code owner} with no parameters, or null when there is none. */
  private static MethodHandle find(Class<?> owner, String name, String returns) {
    Class<?> returnType = int.class.getName().equals(returns) ? int.class : type(returns);
    if (owner == null || returnType == null) {
      return null;
    }
    try {
      return MethodHandles.publicLookup()
          .findVirtual(owner, name, MethodType.methodType(returnType));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null;
    }
  }

  /** A class as the application's Spring sees it, or null. */
  private static Class<?> type(String name) {
    try {
      return Class.forName(name, false, ServerHttpResponse.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private List<Map.Entry<String, String>> headers() {
    List<Map.Entry<String, String>> list = new ArrayList<>();
    getHeaders()
        .forEach(
            (name, values) -> {
              for (String value : values) {
                if (name != null && value != null) {
                  list.add(Map.entry(name, value));
                }
              }
            });
    return list;
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

  /** Appends the buffer's readable bytes to the capture, leaving the buffer as it was. */
  private static void copyInto(BodyCapture capture, DataBuffer buffer) {
    synchronized (capture) {
      if (capture.overflowed()) {
        return; // not stored anyway: the rest streams without a copy
      }
    }
    int position = buffer.readPosition();
    byte[] bytes = new byte[buffer.readableByteCount()];
    buffer.read(bytes);
    buffer.readPosition(position);
    synchronized (capture) {
      capture.append(bytes, 0, bytes.length);
    }
  }
}
