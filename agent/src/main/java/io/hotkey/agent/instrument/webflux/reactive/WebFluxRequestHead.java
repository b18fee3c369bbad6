package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.RequestHead;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A WebFlux request as the idempotency engine sees it before its body. It has no principal: the
 * agent sees the request before any {@code WebFilter} (Spring Security) authenticates it, so the
 * caller is told by the scope headers and cookies.
 */
public final class WebFluxRequestHead implements RequestHead {
  private final ServerHttpRequest request;
  private final String method;
  private final String path;

  WebFluxRequestHead(ServerHttpRequest request, String method, String path) {
    this.request = request;
    this.method = method;
    this.path = path;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String rawPath() {
    String raw = request.getURI().getRawPath();
    return raw == null ? "" : raw;
  }

  @Override
  public String rawQuery() {
    return request.getURI().getRawQuery();
  }

  @Override
  public List<String> headerValues(String name) {
    List<String> values = request.getHeaders().get(name);
    return values == null ? List.of() : values;
  }
}
