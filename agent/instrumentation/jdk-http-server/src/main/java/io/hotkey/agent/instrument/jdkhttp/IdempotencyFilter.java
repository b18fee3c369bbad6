package io.hotkey.agent.instrument.jdkhttp;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.Execution;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.ReleaseReason;
import io.hotkey.agent.idempotency.RequestHead;
import io.hotkey.agent.idempotency.Route;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The idempotency filter the agent puts at the front of every {@code HttpContext}: a thin adapter
 * that maps the exchange to the engine's {@link RequestHead}, buffers the request body (up to
 * max-body; a larger body passes through undeduplicated, with the bytes already read put back in
 * front of the stream), answers replays and errors itself, and for an execution wraps the response
 * stream so status, headers and body are captured while they still stream to the client.
 *
 * <p>Any failure inside this adapter lets the request run untouched (a claim already won is
 * released).
 */
public final class IdempotencyFilter extends Filter {
  @Override
  public String description() {
    return "Hotkey Agent Idempotency-Key handling";
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    IdempotencyEngine engine = IdempotencyFilters.engine();
    if (engine == null) {
      chain.doFilter(exchange);
      return;
    }
    RequestBody body = new RequestBody(exchange);
    Decision decision;
    try {
      decision = decide(engine, exchange, body);
    } catch (Throwable t) {
      IdempotencyFilters.recordError("deciding", t);
      decision = null;
    }
    if (decision == null || decision.outcome() == Outcome.PASS) {
      body.restore();
      chain.doFilter(exchange);
      return;
    }
    if (decision.answer() != null) {
      send(exchange, decision.answer());
      return;
    }
    execute(exchange, chain, decision.execution(), body);
  }

  private static Decision decide(IdempotencyEngine engine, HttpExchange exchange, RequestBody body)
      throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getPath();
    Route route = engine.route(method, path == null ? "/" : path);
    if (route == null) {
      return null;
    }
    return engine.decide(route, new ExchangeHead(exchange), body::read);
  }

  private static void execute(
      HttpExchange exchange, Chain chain, Execution execution, RequestBody body)
      throws IOException {
    CapturingOutputStream capture;
    try {
      capture = new CapturingOutputStream(exchange, exchange.getResponseBody(), execution);
      exchange.setStreams(new ByteArrayInputStream(body.bytes()), capture);
    } catch (Throwable t) {
      IdempotencyFilters.recordError("wrapping the exchange", t);
      execution.fail(ReleaseReason.AGENT_ERROR);
      body.restore();
      chain.doFilter(exchange);
      return;
    }
    try {
      chain.doFilter(exchange);
    } catch (IOException | RuntimeException | Error e) {
      capture.handlerFailed();
      throw e;
    }
    capture.handlerReturned();
  }

  /**
   * Sends an answer the engine made (replay, 4xx/409/422/503 problem) instead of running the
   * handler.
   */
  static void send(HttpExchange exchange, HttpAnswer answer) throws IOException {
    Headers headers = exchange.getResponseHeaders();
    for (Map.Entry<String, String> header : answer.headers()) {
      headers.add(header.getKey(), header.getValue());
    }
    int status = answer.status();
    byte[] body = answer.body();
    boolean bodyless =
        status < 200
            || status == 204
            || status == 304
            || "HEAD".equalsIgnoreCase(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, bodyless || body.length == 0 ? -1 : body.length);
    if (!bodyless && body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
    exchange.close();
  }

  static List<Map.Entry<String, String>> headerList(Headers headers) {
    List<Map.Entry<String, String>> list = new ArrayList<>();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      for (String value : header.getValue()) {
        if (header.getKey() != null && value != null) {
          list.add(Map.entry(header.getKey(), value));
        }
      }
    }
    return list;
  }

  /** The engine's view of an exchange. */
  private static final class ExchangeHead implements RequestHead {
    private final HttpExchange exchange;

    ExchangeHead(HttpExchange exchange) {
      this.exchange = exchange;
    }

    @Override
    public String method() {
      return exchange.getRequestMethod();
    }

    @Override
    public String path() {
      return exchange.getRequestURI().getPath();
    }

    @Override
    public String rawPath() {
      String raw = exchange.getRequestURI().getRawPath();
      return raw == null ? "" : raw;
    }

    @Override
    public String rawQuery() {
      return exchange.getRequestURI().getRawQuery();
    }

    @Override
    public List<String> headerValues(String name) {
      List<String> values = exchange.getRequestHeaders().get(name);
      return values == null ? List.of() : values;
    }
  }
}
