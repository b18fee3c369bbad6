package io.hotkey.webfluxapp;

import java.net.URI;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The order handler as an annotated controller, counted with the functional routes. */
@RestController
public class AnnotatedOrders {
  private final Orders orders;

  AnnotatedOrders(Orders orders) {
    this.orders = orders;
  }

  @PostMapping("/annotated/orders")
  Mono<ResponseEntity<String>> place(
      @RequestBody(required = false) String body,
      @RequestHeader(value = "X-Mode", required = false) String mode) {
    return orders
        .run(mode, "/annotated/orders", body == null ? "" : body)
        .map(
            order ->
                order.failed
                    ? ResponseEntity.status(500).body("the order failed")
                    : ResponseEntity.created(URI.create(order.location))
                        .header(HttpHeaders.SET_COOKIE, "order=" + order.run)
                        .contentType(MediaType.APPLICATION_JSON)
                        .body(order.json));
  }
}
