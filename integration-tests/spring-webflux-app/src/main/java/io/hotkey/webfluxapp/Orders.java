package io.hotkey.webfluxapp;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The order handler the idempotency checks count: each run takes the next number; {@code X-Mode:
 * slow} waits 500 ms (without blocking a thread), {@code fail} answers 500, {@code throw} fails the
 * chain, anything else answers 201 with {@code Location: <path>/<run>}, a Set-Cookie, on the
 * functional route the handler's thread in {@code X-Handler-Thread}, and a JSON body that differs
 * from run to run.
 */
@Component
public class Orders {
  private final AtomicInteger runs = new AtomicInteger();

  int runs() {
    return runs.get();
  }

  /** The functional route. */
  Mono<ServerResponse> handle(ServerRequest request) {
    String path = request.path();
    String mode = request.headers().firstHeader("X-Mode");
    return request
        .bodyToMono(String.class)
        .defaultIfEmpty("")
        .flatMap(body -> run(mode, path, body))
        .flatMap(
            order ->
                order.failed
                    ? ServerResponse.status(500).bodyValue("the order failed")
                    : ServerResponse.created(URI.create(order.location))
                        .header(HttpHeaders.SET_COOKIE, "order=" + order.run)
                        .header("X-Handler-Thread", order.thread)
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(order.json));
  }

  /** The order as a stream of three chunks (a {@code Flux} body, written as it comes). */
  Mono<ServerResponse> stream(ServerRequest request) {
    return request
        .bodyToMono(String.class)
        .defaultIfEmpty("")
        .flatMap(
            body -> {
              int run = runs.incrementAndGet();
              return ServerResponse.ok()
                  .contentType(MediaType.TEXT_PLAIN)
                  .body(
                      Flux.just("order " + run, " at " + System.nanoTime(), " of " + body),
                      String.class);
            });
  }

  /** One run of the handler: slow, failed, thrown or placed. */
  Mono<Order> run(String mode, String path, String body) {
    int run = runs.incrementAndGet();
    String thread = Thread.currentThread().getName();
    Mono<Long> wait = "slow".equals(mode) ? Mono.delay(Duration.ofMillis(500)) : Mono.just(0L);
    return wait.then(
        Mono.defer(
            () -> {
              if ("throw".equals(mode)) {
                return Mono.error(new IllegalStateException("the order handler threw"));
              }
              return Mono.just(new Order(run, path, body, "fail".equals(mode), thread));
            }));
  }

  /** What a run answers. */
  static final class Order {
    final int run;
    final String location;
    final String json;
    final boolean failed;

    /** The thread the handler was called on, which the agent's store calls may change. */
    final String thread;

    Order(int run, String path, String body, boolean failed, String thread) {
      this.run = run;
      this.thread = thread;
      this.location = path + "/" + run;
      this.json =
          "{\"order\":"
              + run
              + ",\"at\":"
              + System.nanoTime()
              + ",\"received\":\""
              + body.replace("\\", "\\\\").replace("\"", "\\\"")
              + "\"}";
      this.failed = failed;
    }
  }
}
