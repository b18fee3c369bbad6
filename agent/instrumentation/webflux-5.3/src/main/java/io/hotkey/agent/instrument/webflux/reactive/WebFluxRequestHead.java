package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.RequestHead;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A WebFlux request as the idempotency engine sees it before its body, with the name of the
 * exchange's principal once the {@code WebFilter}s (Spring Security) ran.
 */
public final class WebFluxRequestHead implements RequestHead {
  private final ServerHttpRequest request;
  private final String method;
  private final String path;
  private final String principal;

  WebFluxRequestHead(ServerHttpRequest request, String method, String path, String principal) {
    this.request = request;
    this.method = method;
    this.path = path;
    this.principal = principal;
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
  public String principal() {
    return principal;
  }

  @Override
  public String rawQuery() {
    return request.getURI().getRawQuery();
  }

  /**
   * Walks the headers rather than asking for one: {@code forEach} is the lookup Spring 5.3, 6 and 7
   * all have with one signature ({@code get} takes an {@code Object} before 7, a {@code String}
   * since).
   */
  @Override
  public List<String> headerValues(String name) {
    List<String> values = new ArrayList<>(1);
    request
        .getHeaders()
        .forEach(
            (header, list) -> {
              if (header.equalsIgnoreCase(name)) {
                values.addAll(list);
              }
            });
    return values;
  }
}
