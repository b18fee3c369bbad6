package io.hotkey.it.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Executors;

/**
 * JdkHttpIdempotencyIT's child: a plain {@code com.sun.net.httpserver.HttpServer} application with
 * no knowledge of the agent (the test configures {@code hotkey.idempotency.*}; the agent adds its
 * filter to every context).
 *
 * <ul>
 *   <li>{@code POST /orders} (and every path under it) and {@code POST /refunds}: one handler.
 *       Every run first appends one line to the runs file ({@code --runs <path>}), so the test
 *       counts runs across restarts and kills; then {@code X-Mode} picks: {@code slow} (sleep
 *       {@code X-Sleep} ms, default 500), {@code fail} (500), {@code throw} (an exception: the JDK
 *       server closes the connection without an answer), {@code hang} (sleep until the JVM is
 *       killed); anything else answers at once. The answer is 201 JSON with the run number and a
 *       nanosecond stamp, so two runs never answer alike, plus {@code Location} and {@code
 *       Set-Cookie}.
 *   <li>{@code GET /outcomes}: the agent's JMX attribute {@code IdempotencyOutcomes}, one {@code
 *       name=count} a line.
 *   <li>Any other path: 404.
 * </ul>
 *
 * Prints {@code PORT n} once it listens on 127.0.0.1.
 */
public final class IdempotentOrdersApp {
  private static Path runs;

  private IdempotentOrdersApp() {}

  public static void main(String[] args) throws Exception {
    runs = Paths.get(Child.parseArgs(args).get("runs"));
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/orders", IdempotentOrdersApp::order);
    server.createContext("/refunds", IdempotentOrdersApp::order);
    server.createContext("/outcomes", IdempotentOrdersApp::outcomes);
    // a catch-all as most applications have: every path reaches a context (and so the agent's
    // token endpoint), and answers 404
    server.createContext("/", IdempotentOrdersApp::notFound);
    server.start();
    System.out.println("PORT " + server.getAddress().getPort());
    System.out.flush();
  }

  private static void order(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String mode = String.valueOf(exchange.getRequestHeaders().getFirst("X-Mode"));
    long run = recordRun(exchange.getRequestURI().getPath() + " " + mode + " " + body);
    switch (mode) {
      case "slow" -> {
        String sleep = exchange.getRequestHeaders().getFirst("X-Sleep");
        pause(sleep == null ? 500 : Long.parseLong(sleep));
      }
      case "hang" -> pause(Long.MAX_VALUE);
      case "throw" ->
          throw new IllegalStateException("handler failed on purpose (run " + run + ")");
      default -> {}
    }
    byte[] json =
        ("{\"order\":" + run + ",\"body\":\"" + body + "\",\"nanos\":" + System.nanoTime() + "}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.getResponseHeaders().add("Location", exchange.getRequestURI().getPath() + "/" + run);
    exchange.getResponseHeaders().add("Set-Cookie", "session=" + run);
    exchange.sendResponseHeaders(mode.equals("fail") ? 500 : 201, json.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(json);
    }
  }

  /**
   * Appends a line to the runs file (one write: it survives a kill of this JVM); returns the run's
   * number.
   */
  private static synchronized long recordRun(String what) throws IOException {
    Files.write(
        runs,
        (what.replace('\n', ' ') + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    return Files.readAllLines(runs).size();
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void notFound(HttpExchange exchange) throws IOException {
    exchange.sendResponseHeaders(404, -1);
    exchange.close();
  }

  private static void outcomes(HttpExchange exchange) throws IOException {
    byte[] bytes = Child.idempotencyOutcomes().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
