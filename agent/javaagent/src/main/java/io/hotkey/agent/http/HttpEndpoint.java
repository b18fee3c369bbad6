package io.hotkey.agent.http;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.report.AgentReport;
import io.hotkey.config.HotkeyConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The built-in HTTP endpoint ({@code hotkey.http.port}, off by default) on the JDK's own server, in
 * two daemon threads of its own: {@code /} the live page, {@code /api/hotkeys} and {@code
 * /api/history} the JSON it polls, {@code /metrics} Prometheus. Read-only: every method but GET and
 * HEAD is refused.
 */
public final class HttpEndpoint {
  private static final String JSON = "application/json; charset=utf-8";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final AgentReport report;
  private final PageAssets page = new PageAssets();
  private PrometheusMetrics metrics;

  private HttpEndpoint(AgentReport report) {
    this.report = report;
  }

  /**
   * Starts the endpoint when {@code hotkey.http.port} is set, on its own thread: the application's
   * start never waits for it, and a port already taken costs one log line.
   */
  public static void startIfConfigured(HotkeyConfig config, AgentReport report) {
    if (config.httpPort().isEmpty()) {
      return;
    }
    String host = config.httpHost();
    int port = config.httpPort().getAsInt();
    ExecutorService threads = Executors.newFixedThreadPool(2, new DaemonThreads());
    // resolving the host may wait for DNS, and the server's dispatcher thread inherits the daemon
    // flag of the thread that starts it (so it never holds the JVM open): both happen here
    threads.execute(
        () -> new HttpEndpoint(report).start(new InetSocketAddress(host, port), threads));
  }

  private void start(InetSocketAddress address, ExecutorService threads) {
    String where = address.getHostString() + ":" + address.getPort();
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (BindException e) {
      AgentLog.warn("http endpoint not started: " + where + " is already in use");
      threads.shutdown();
      return;
    } catch (IOException | RuntimeException e) {
      AgentLog.warn("http endpoint not started on " + where + ": " + e);
      threads.shutdown();
      return;
    }
    HttpContext context = server.createContext("/", this::handle);
    // the agent puts its idempotency filter into every context created in this JVM; its own
    // endpoint is not an application route, so nothing may stand between it and its handler
    context.getFilters().clear();
    server.setExecutor(threads);
    server.start();
    report.startSampling();
    InetSocketAddress bound = server.getAddress();
    String base = "http://" + hostForUrl(address) + ":" + bound.getPort() + "/";
    AgentLog.info(
        "http endpoint: " + base + " (live page), " + base + "metrics, " + base + "api/hotkeys");
    if (bound.getAddress() != null && !bound.getAddress().isLoopbackAddress()) {
      AgentLog.warn(
          "http endpoint on "
              + where
              + " is reachable from other hosts and has no authentication: it shows keys and configuration");
    }
  }

  private static String hostForUrl(InetSocketAddress address) {
    String host = address.getHostString();
    return host.contains(":") ? "[" + host + "]" : host;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String method = exchange.getRequestMethod();
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain; charset=utf-8", "read-only: GET or HEAD\n");
        return;
      }
      String path = exchange.getRequestURI().getPath();
      switch (path) {
        case "/api/hotkeys":
          send(exchange, 200, JSON, report.json());
          break;
        case "/api/history":
          send(exchange, 200, JSON, report.historyJson());
          break;
        case "/metrics":
          send(exchange, 200, PROMETHEUS_TEXT, metrics().scrape());
          break;
        default:
          PageAssets.Asset asset = page.find(path);
          if (asset == null) {
            send(exchange, 404, "text/plain; charset=utf-8", "not found\n");
          } else {
            exchange.getResponseHeaders().set("Content-Security-Policy", PageAssets.POLICY);
            send(exchange, 200, asset.contentType(), asset.bytes());
          }
      }
    } catch (RuntimeException | LinkageError e) {
      AgentLog.warn("http endpoint could not answer " + exchange.getRequestURI() + ": " + e);
      exchange.sendResponseHeaders(500, -1);
    } finally {
      exchange.close();
    }
  }

  private synchronized PrometheusMetrics metrics() {
    if (metrics == null) {
      metrics = new PrometheusMetrics(report.meters());
    }
    return metrics;
  }

  private static void send(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    send(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static final class DaemonThreads implements java.util.concurrent.ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "hotkey-http-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  }
}
