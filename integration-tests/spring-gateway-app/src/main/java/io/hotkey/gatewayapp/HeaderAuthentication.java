package io.hotkey.gatewayapp;

import java.security.Principal;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Authentication at the gateway as a {@code WebFilter} does it (Spring Security's among them): a
 * request with {@code X-User: <name>} goes on with that name as the exchange's principal. The
 * header is no scope header of the agent's, so only the principal tells two such callers apart.
 */
@Component
public class HeaderAuthentication implements WebFilter {
  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    String user = exchange.getRequest().getHeaders().getFirst("X-User");
    if (user == null) {
      return chain.filter(exchange);
    }
    Principal principal = () -> user;
    return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
  }
}
