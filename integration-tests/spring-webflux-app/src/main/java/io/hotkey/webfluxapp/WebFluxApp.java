package io.hotkey.webfluxapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A plain Spring WebFlux application on Reactor Netty: the order handler as functional routes
 * ({@code POST /orders}, {@code /orders/checkout}, {@code /orders/pay}; {@code /orders/stream}
 * answers in several chunks) and as an annotated
 * controller ({@code POST /annotated/orders}, {@link AnnotatedOrders}), both counting their runs
 * in {@link Orders}; {@code GET /threads} lists the live threads' names. Started with {@value BlockingCheck#PROPERTY}{@code =true}, it runs under
 * BlockHound ({@link BlockingCheck}).
 */
@SpringBootApplication
public class WebFluxApp {
  public static void main(String[] args) {
    BlockingCheck.installIfAsked();
    SpringApplication.run(WebFluxApp.class, args);
  }

  @Bean
  RouterFunction<ServerResponse> orderRoutes(Orders orders) {
    return RouterFunctions.route()
        .POST("/orders", orders::handle)
        .POST("/orders/checkout", orders::handle)
        .POST("/orders/pay", orders::handle)
        .POST("/orders/stream", orders::stream)
        .GET("/orders/runs", request -> ServerResponse.ok().bodyValue(orders.runs() + "\n"))
        .GET("/threads", request -> ServerResponse.ok().bodyValue(threadNames()))
        .build();
  }

  /** The names of the live threads, one a line: which threads the agent made. */
  private static String threadNames() {
    StringBuilder names = new StringBuilder();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      names.append(thread.getName()).append('\n');
    }
    return names.toString();
  }
}
