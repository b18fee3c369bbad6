package io.hotkey.agent.instrument.webflux.reactive;

import io.hotkey.agent.idempotency.RequestHead;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A WebFlux request as the idempotency engine sees it before its body, with the name of the
 * exchange's principal once the {@code WebFilter}s (Spring Security) ran.
 */
public final class WebFluxRequestHead implements RequestHead {
  /**
   * {@code HttpHeaders.get}, one header's values by a case-insensitive lookup: it takes a {@code
   * String} on Spring 7 and an {@code Object} before, so no one call links on every version; found
   * once, typed {@code (HttpHeaders, String) -> List}.
   */
  private static final MethodHandle GET_VALUES = findGetValues();

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

  @Override
  @SuppressWarnings("unchecked") // HttpHeaders.get returns List<String> on every version
  public List<String> headerValues(String name) {
    List<String> values;
    try {
      values = (List<String>) GET_VALUES.invokeExact(request.getHeaders(), name);
    } catch (Throwable t) {
      throw new IllegalStateException("reading the request header " + name, t);
    }
    return values == null ? List.of() : values;
  }

  private static MethodHandle findGetValues() {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    MethodType type = MethodType.methodType(List.class, HttpHeaders.class, String.class);
    try {
      return lookup
          .findVirtual(HttpHeaders.class, "get", MethodType.methodType(List.class, String.class))
          .asType(type);
    } catch (NoSuchMethodException | IllegalAccessException beforeSpring7) {
      try {
        return lookup
            .findVirtual(HttpHeaders.class, "get", MethodType.methodType(List.class, Object.class))
            .asType(type);
      } catch (NoSuchMethodException | IllegalAccessException e) {
        throw new IllegalStateException("HttpHeaders has no get(String) nor get(Object)", e);
      }
    }
  }
}
