package io.hotkey.demo.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * The reactive child JVM of {@link IdempotencyBench} ({@code --server webflux}): the same service
 * as {@link IdempotencyBenchApp}, same paths, answers and stats, as Spring WebFlux on Reactor
 * Netty.
 *
 * <p>It is wired the way Spring Boot wires a WebFlux application ({@code @EnableWebFlux}, {@code
 * WebHttpHandlerBuilder} over the context, so {@code HttpWebHandlerAdapter} in front of {@code
 * DispatcherHandler}, on Reactor Netty's {@code HttpServer}), which is the path the agent
 * instruments, but without Boot: the benchmark's jar then needs only Spring's web modules and
 * Reactor Netty, and a child starts in about a second.
 *
 * <p>{@code --workers N}: Reactor Netty's event-loop threads ({@code reactor-http-nio-*}). {@code
 * --redis-pings N --redis URI}: the order handler also sends N PINGs, one after the other, on one
 * shared Lettuce connection with its reactive API, as a reactive service calls Redis: the round
 * trips the redis store makes, as this service pays them. Prints {@value
 * IdempotencyBenchApp#LISTENING}{@code port} once it serves, and stops when its stdin closes.
 */
public final class IdempotencyBenchWebFluxApp {
  private static final Pattern PRODUCT_ID = Pattern.compile("\"productId\"\\s*:\\s*(\\d+)");
  private static final Pattern QUANTITY = Pattern.compile("\"quantity\"\\s*:\\s*(\\d+)");

  private final AtomicLong handled = new AtomicLong();
  private final int redisPings;
  private final RedisReactiveCommands<String, String> redis;

  private IdempotencyBenchWebFluxApp(int redisPings, RedisReactiveCommands<String, String> redis) {
    this.redisPings = redisPings;
    this.redis = redis;
  }

  public static void main(String[] args) throws Exception {
    IdempotencyBenchApp.useJmx();
    BenchArgs options = BenchArgs.parse(args, "--workers", "--redis-pings", "--redis");
    int workers = options.wholeNumber("--workers", 8, 1);
    int redisPings = options.wholeNumber("--redis-pings", 0, 0);
    URI redisUri = options.text("--redis").map(URI::create).orElse(null);
    if (redisPings > 0 && redisUri == null) {
      throw new IllegalArgumentException("--redis-pings needs --redis");
    }
    RedisClient redisClient = redisPings > 0 ? RedisClient.create(redisUri.toString()) : null;
    StatefulRedisConnection<String, String> connection =
        redisClient == null ? null : redisClient.connect();
    IdempotencyBenchWebFluxApp app =
        new IdempotencyBenchWebFluxApp(
            redisPings, connection == null ? null : connection.reactive());
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.registerBean(IdempotencyBenchWebFluxApp.class, () -> app);
      context.register(WebConfig.class);
      context.refresh();
      HttpHandler handler = WebHttpHandlerBuilder.applicationContext(context).build();
      LoopResources loops = LoopResources.create("reactor-http", workers, true);
      DisposableServer server =
          HttpServer.create()
              .host("127.0.0.1")
              .port(0)
              .runOn(loops)
              .handle(new ReactorHttpHandlerAdapter(handler))
              .bindNow();
      System.out.println(IdempotencyBenchApp.LISTENING + " " + server.port());
      System.out.flush();
      // Serves until the parent closes our stdin (or dies).
      BufferedReader parent =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (parent.readLine() != null) {
        // nothing is said on stdin but its end
      }
      server.disposeNow();
      loops.dispose();
    } finally {
      if (connection != null) {
        connection.close();
        redisClient.shutdown();
      }
    }
  }

  /** Spring WebFlux with the service's two routes. */
  @Configuration
  @EnableWebFlux
  static class WebConfig {
    @Bean
    RouterFunction<ServerResponse> routes(IdempotencyBenchWebFluxApp app) {
      return RouterFunctions.route()
          .POST(IdempotencyBenchApp.ORDERS, app::order)
          .GET(IdempotencyBenchApp.STATS, app::stats)
          .build();
    }
  }

  private Mono<ServerResponse> order(ServerRequest request) {
    return request
        .bodyToMono(String.class)
        .defaultIfEmpty("")
        .flatMap(
            body -> {
              Matcher product = PRODUCT_ID.matcher(body);
              Matcher quantity = QUANTITY.matcher(body);
              if (!product.find() || !quantity.find()) {
                return ServerResponse.badRequest()
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"error\":\"productId and quantity are required\"}");
              }
              Mono<Void> pings =
                  redisPings == 0
                      ? Mono.empty()
                      : Flux.range(0, redisPings).concatMap(ping -> redis.ping()).then();
              return pings.then(Mono.defer(() -> created(product.group(1), quantity.group(1))));
            });
  }

  private Mono<ServerResponse> created(String productId, String quantity) {
    long id = handled.incrementAndGet();
    return ServerResponse.created(URI.create(IdempotencyBenchApp.ORDERS + "/" + id))
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(
            "{\"id\":"
                + id
                + ",\"productId\":"
                + productId
                + ",\"quantity\":"
                + quantity
                + ",\"status\":\"created\"}");
  }

  private Mono<ServerResponse> stats(ServerRequest request) {
    StringBuilder text = new StringBuilder(IdempotencyBenchApp.HANDLED + "=" + handled.get());
    IdempotencyBenchApp.agentOutcomes()
        .forEach(
            (name, count) ->
                text.append(' ')
                    .append(IdempotencyBenchApp.OUTCOME_PREFIX)
                    .append(name)
                    .append('=')
                    .append(count));
    return ServerResponse.ok().contentType(MediaType.TEXT_PLAIN).bodyValue(text.toString());
  }
}
