package io.hotkey.agent.instrument.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;
import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencySettings;
import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.instrument.InstalledModules;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.testing.RedisProcess;
import io.hotkey.agent.testing.TestCertificates;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real JDK server over real sockets, instrumented in this JVM as the agent instruments it
 * ({@link InstalledModules}: {@code sun.net.httpserver.ServerImpl} is retransformed if it is
 * already loaded). Applications create contexts the usual way; nothing in the test adds the filter
 * by hand.
 */
class JdkHttpServerIdempotencyTest {
  private static final int MAX_BODY = 4096;
  private static InstalledModules modules;
  private static final AgentErrors AGENT_ERRORS = new AgentErrors(0);

  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  static void instrument() {
    modules = new InstalledModules(new JdkHttpServerInstrumentationModule());
  }

  @AfterAll
  static void uninstrument() {
    IdempotencyFilters.deactivate();
    if (modules != null) {
      modules.close();
    }
  }

  @AfterEach
  void close() throws Exception {
    IdempotencyFilters.deactivate();
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private IdempotencyEngine activate(RecordStore store) {
    IdempotencyEngine engine =
        new IdempotencyEngine(
            new IdempotencySettings(
                RouteTable.parse("POST /orders/**, PUT /big"),
                "Idempotency-Key",
                List.of("Authorization"),
                false,
                Duration.ofHours(1),
                Duration.ofSeconds(30),
                MAX_BODY,
                StoreFailurePolicy.REJECT),
            store);
    IdempotencyFilters.activate(engine, AGENT_ERRORS);
    cleanup.add(engine);
    return engine;
  }

  private HttpServer server(String path, HttpHandler handler) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    ExecutorService executor = Executors.newFixedThreadPool(64);
    server.setExecutor(executor);
    server.createContext(path, handler);
    server.start();
    cleanup.add(executor::shutdownNow);
    cleanup.add(() -> server.stop(0));
    return server;
  }

  private static URI uri(HttpServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  private HttpResponse<byte[]> post(URI uri, String key, String body) throws Exception {
    return client.send(request(uri, key, body), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpRequest request(URI uri, String key, String body) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      builder.header("Idempotency-Key", key);
    }
    return builder.header("Authorization", "Bearer alice").build();
  }

  /** An order handler: creates a new order id on every run and says so in a unique body. */
  private static HttpHandler orders(AtomicInteger runs, long sleepMillis) {
    return exchange -> {
      byte[] request = exchange.getRequestBody().readAllBytes();
      int order = runs.incrementAndGet();
      try {
        Thread.sleep(sleepMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body =
          ("{\"order\":"
                  + order
                  + ",\"nonce\":\""
                  + UUID.randomUUID()
                  + "\",\"request\":\""
                  + new String(request, StandardCharsets.UTF_8)
                  + "\"}")
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.getResponseHeaders().add("Location", "/orders/" + order);
      exchange.getResponseHeaders().add("Set-Cookie", "session=" + UUID.randomUUID());
      exchange.sendResponseHeaders(201, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    };
  }

  @Test
  void everyContextGetsTheFilterFirst() throws Exception {
    activate(new MemoryRecordStore(1 << 20));
    HttpServer server = server("/orders", orders(new AtomicInteger(), 0));
    HttpContext later = server.createContext("/later");
    later
        .getFilters()
        .add(
            new Filter() {
              @Override
              public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
                chain.doFilter(exchange);
              }

              @Override
              public String description() {
                return "application filter";
              }
            });
    assertTrue(modules.errors().isEmpty(), modules.errors().toString());
    assertTrue(
        modules.transformed().contains(JdkHttpServerInstrumentation.SERVER_IMPL),
        modules.transformed().toString());
    assertInstanceOf(IdempotencyFilter.class, later.getFilters().get(0));
    assertEquals(2, later.getFilters().size());
    assertEquals(IdempotencyFilters.class.getName(), IdempotencyFilters.CLASS_NAME);
  }

  @Test
  void twoHundredConcurrentRequestsWithOneKeyRunTheHandlerOnceMemory() throws Exception {
    concurrentRequestsRunTheHandlerOnce(new MemoryRecordStore(1 << 20));
  }

  @Test
  void twoHundredConcurrentRequestsWithOneKeyRunTheHandlerOnceRedis() throws Exception {
    RedisProcess redis = RedisProcess.start();
    cleanup.add(redis);
    concurrentRequestsRunTheHandlerOnce(
        new RedisRecordStore(RedisEndpoint.of("127.0.0.1", redis.port())));
  }

  private void concurrentRequestsRunTheHandlerOnce(RecordStore store) throws Exception {
    IdempotencyEngine engine = activate(store);
    AtomicInteger runs = new AtomicInteger();
    HttpServer server = server("/orders", orders(runs, 300));
    URI uri = uri(server, "/orders");
    String key = UUID.randomUUID().toString();
    List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      futures.add(
          client.sendAsync(request(uri, key, "sku=42"), HttpResponse.BodyHandlers.ofByteArray()));
    }
    List<HttpResponse<byte[]>> responses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<byte[]>> future : futures) {
      responses.add(future.get());
    }
    assertEquals(1, runs.get(), "the handler ran exactly once");
    HttpResponse<byte[]> original = null;
    int conflicts = 0;
    int replays = 0;
    for (HttpResponse<byte[]> response : responses) {
      if (response.statusCode() == 409) {
        conflicts++;
        assertTrue(
            Integer.parseInt(response.headers().firstValue("Retry-After").orElseThrow()) >= 1);
        assertEquals(
            "application/problem+json",
            response.headers().firstValue("Content-Type").orElseThrow());
      } else if (response.headers().firstValue("Idempotent-Replayed").isPresent()) {
        replays++;
      } else {
        assertNull(original, "only one response comes from the handler");
        original = response;
      }
    }
    assertTrue(original != null, "the handler's own response reached its client");
    assertEquals(201, original.statusCode());
    for (HttpResponse<byte[]> response : responses) {
      if (response.statusCode() != 409) {
        assertEquals(201, response.statusCode());
        assertArrayEquals(original.body(), response.body(), "byte-identical to the first answer");
        assertEquals(
            original.headers().firstValue("Content-Type"),
            response.headers().firstValue("Content-Type"));
        assertEquals(
            original.headers().firstValue("Location"), response.headers().firstValue("Location"));
      }
    }
    assertEquals(200, 1 + conflicts + replays);
    HttpResponse<byte[]> retry = post(uri, key, "sku=42");
    assertEquals(201, retry.statusCode());
    assertEquals("true", retry.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertArrayEquals(original.body(), retry.body());
    assertTrue(original.headers().firstValue("Set-Cookie").isPresent());
    assertFalse(
        retry.headers().firstValue("Set-Cookie").isPresent(), "Set-Cookie is never replayed");
    assertEquals(1, runs.get());
    assertEquals(1, engine.meters().executed());
    assertEquals(1, engine.meters().stored());
    System.out.println(
        "[jdkhttp "
            + store.describe()
            + "] 200 concurrent: 1 executed, "
            + conflicts
            + " got 409, "
            + replays
            + " replayed; meters "
            + engine.meters());
  }

  @Test
  void errorsAndExceptionsReleaseTheKey() throws Exception {
    activate(new MemoryRecordStore(1 << 20));
    AtomicInteger runs = new AtomicInteger();
    HttpServer server =
        server(
            "/orders",
            exchange -> {
              int run = runs.incrementAndGet();
              exchange.getRequestBody().readAllBytes();
              if (run == 1) {
                exchange.sendResponseHeaders(500, -1);
                return;
              }
              if (run == 2) {
                throw new IllegalStateException("handler bug");
              }
              byte[] body = ("ok " + run).getBytes(StandardCharsets.UTF_8);
              exchange.sendResponseHeaders(200, body.length);
              exchange.getResponseBody().write(body);
              exchange.close();
            });
    URI uri = uri(server, "/orders");
    assertEquals(500, post(uri, "k", "x").statusCode());
    try {
      post(uri, "k", "x");
    } catch (IOException expected) {
      // the JDK server closes the connection when a handler throws
    }
    HttpResponse<byte[]> third = post(uri, "k", "x");
    assertEquals(200, third.statusCode());
    assertEquals("ok 3", new String(third.body(), StandardCharsets.UTF_8));
    HttpResponse<byte[]> replay = post(uri, "k", "x");
    assertEquals("ok 3", new String(replay.body(), StandardCharsets.UTF_8));
    assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertEquals(3, runs.get());
  }

  @Test
  void chunkedAndBodylessResponsesAreStoredAndTooLargeOnesAreNot() throws Exception {
    IdempotencyEngine engine = activate(new MemoryRecordStore(1 << 20));
    AtomicInteger runs = new AtomicInteger();
    HttpServer server =
        server(
            "/orders",
            exchange -> {
              runs.incrementAndGet();
              exchange.getRequestBody().readAllBytes();
              String path = exchange.getRequestURI().getPath();
              if (path.endsWith("/none")) {
                exchange.sendResponseHeaders(204, -1); // handler returns without closing anything
                return;
              }
              int size = path.endsWith("/huge") ? MAX_BODY * 3 : 3000;
              exchange.getResponseHeaders().add("Content-Type", "text/plain");
              exchange.sendResponseHeaders(200, 0); // chunked
              try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i < size; i += 100) {
                  out.write(("x".repeat(99) + "\n").getBytes(StandardCharsets.UTF_8));
                  out.flush();
                }
              }
            });
    HttpResponse<byte[]> chunked = post(uri(server, "/orders/chunked"), "c", "");
    HttpResponse<byte[]> chunkedReplay = post(uri(server, "/orders/chunked"), "c", "");
    assertTrue(chunkedReplay.headers().firstValue("Idempotent-Replayed").isPresent());
    assertArrayEquals(chunked.body(), chunkedReplay.body());
    assertEquals(3000, chunkedReplay.body().length);

    assertEquals(204, post(uri(server, "/orders/none"), "n", "").statusCode());
    HttpResponse<byte[]> noneReplay = post(uri(server, "/orders/none"), "n", "");
    assertEquals(204, noneReplay.statusCode());
    assertTrue(noneReplay.headers().firstValue("Idempotent-Replayed").isPresent());

    HttpResponse<byte[]> huge = post(uri(server, "/orders/huge"), "h", "");
    HttpResponse<byte[]> hugeAgain = post(uri(server, "/orders/huge"), "h", "");
    assertEquals(
        (MAX_BODY * 3 + 99) / 100 * 100,
        huge.body().length,
        "a response over max-body still streams whole");
    assertFalse(
        hugeAgain.headers().firstValue("Idempotent-Replayed").isPresent(),
        "over max-body: not stored");
    assertEquals(4, runs.get());
    assertEquals(2, engine.meters().notStored(), "each run over max-body is not stored");
  }

  @Test
  void errorAnswersAndPassThrough() throws Exception {
    IdempotencyEngine engine = activate(new MemoryRecordStore(1 << 20));
    AtomicInteger runs = new AtomicInteger();
    List<Integer> bodySizes = new CopyOnWriteArrayList<>();
    HttpHandler handler =
        exchange -> {
          runs.incrementAndGet();
          bodySizes.add(exchange.getRequestBody().readAllBytes().length);
          exchange.sendResponseHeaders(200, 2);
          exchange.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
          exchange.close();
        };
    HttpServer server = server("/", handler);
    URI orders = uri(server, "/orders");

    assertEquals(200, post(orders, null, "a").statusCode());
    assertEquals(200, post(orders, null, "a").statusCode());
    assertEquals(2, runs.get(), "no key on an optional route: pass through");

    HttpResponse<byte[]> invalid = post(orders, "has space", "a");
    assertEquals(400, invalid.statusCode());
    assertEquals(
        "application/problem+json", invalid.headers().firstValue("Content-Type").orElseThrow());
    String problem = new String(invalid.body(), StandardCharsets.UTF_8);
    assertTrue(problem.contains("\"status\":400") && problem.contains("\"type\":"), problem);

    assertEquals(200, post(orders, "k", "a").statusCode());
    HttpResponse<byte[]> mismatch = post(orders, "k", "b");
    assertEquals(422, mismatch.statusCode());
    assertEquals(3, runs.get());

    HttpResponse<byte[]> other =
        client.send(
            HttpRequest.newBuilder(uri(server, "/other"))
                .header("Idempotency-Key", "k")
                .POST(HttpRequest.BodyPublishers.ofString("z"))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, other.statusCode());
    assertEquals(4, runs.get(), "unconfigured route: untouched");

    String big = "y".repeat(MAX_BODY * 2 + 17);
    HttpRequest bigRequest =
        HttpRequest.newBuilder(uri(server, "/orders"))
            .header("Idempotency-Key", "big")
            .POST(
                HttpRequest.BodyPublishers.ofInputStream(
                    () -> new java.io.ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
            .build(); // chunked request: no Content-Length to go by
    assertEquals(
        200, client.send(bigRequest, HttpResponse.BodyHandlers.ofByteArray()).statusCode());
    assertEquals(
        200, client.send(bigRequest, HttpResponse.BodyHandlers.ofByteArray()).statusCode());
    assertEquals(6, runs.get(), "a request body over max-body passes through");
    assertEquals(
        big.length(), bodySizes.get(bodySizes.size() - 1), "and the handler still reads all of it");
    assertEquals(2, engine.meters().bodyTooLarge());
  }

  @Test
  void aResponseWrittenInFlushedPiecesStreamsAndIsStoredWhole() throws Exception {
    activate(new MemoryRecordStore(1 << 20));
    CountDownLatch secondHalf = new CountDownLatch(1);
    HttpServer server =
        server(
            "/orders",
            exchange -> {
              exchange.getRequestBody().readAllBytes();
              exchange.sendResponseHeaders(200, 8);
              OutputStream out = exchange.getResponseBody();
              out.write("1234".getBytes(StandardCharsets.UTF_8));
              out.flush();
              try {
                secondHalf.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              out.write("5678".getBytes(StandardCharsets.UTF_8));
              exchange.close();
            });
    try (RawHttp raw = new RawHttp(server)) {
      raw.post("/orders", "flushed");
      assertTrue(raw.readHead().startsWith("HTTP/1.1 200"));
      assertEquals("1234", raw.readBytes(4), "flushed before the rest is written");
      secondHalf.countDown();
      assertEquals("5678", raw.readBytes(4));
    }
    HttpResponse<byte[]> replay = post(uri(server, "/orders"), "flushed", "");
    assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertEquals("12345678", new String(replay.body(), StandardCharsets.UTF_8));
  }

  @Test
  void anUnfinishedBodyReleasesTheKeyAndTheClientGetsWhatWasWritten() throws Exception {
    IdempotencyEngine engine = activate(new MemoryRecordStore(1 << 20));
    AtomicInteger runs = new AtomicInteger();
    HttpServer server =
        server(
            "/orders",
            exchange -> {
              int run = runs.incrementAndGet();
              exchange.getRequestBody().readAllBytes();
              exchange.sendResponseHeaders(200, 100);
              exchange.getResponseBody().write("partial".getBytes(StandardCharsets.UTF_8));
              if (run == 1) {
                throw new IllegalStateException("handler bug after 7 of 100 bytes");
              }
              exchange.close(); // 7 of 100 bytes
            });
    for (int run = 1; run <= 2; run++) {
      try (RawHttp raw = new RawHttp(server)) {
        raw.post("/orders", "unfinished");
        String response = raw.readUntilClosed(Duration.ofSeconds(10));
        assertTrue(
            response.startsWith("HTTP/1.1 200") && response.endsWith("\r\n\r\npartial"),
            "run " + run + " sends what it wrote, as without the agent: " + response);
      }
    }
    assertEquals(2, runs.get(), "each unfinished answer released the key");
    assertEquals(0, engine.meters().stored());
  }

  @Test
  void anHttpsServersResponsesAreStoredAndTheHandlerSeesItsExchangeAsUsual() throws Exception {
    activate(new MemoryRecordStore(1 << 20));
    TestCertificates certificates = TestCertificates.create();
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setHttpsConfigurator(new HttpsConfigurator(certificates.serverContext()));
    List<String> seen = new CopyOnWriteArrayList<>();
    server.createContext(
        "/orders",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          String protocol = ((HttpsExchange) exchange).getSSLSession().getProtocol();
          exchange.sendResponseHeaders(201, protocol.length());
          seen.add("status " + exchange.getResponseCode());
          try {
            exchange.sendResponseHeaders(500, -1);
          } catch (IOException expected) {
            seen.add("second status refused");
          }
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(protocol.getBytes(StandardCharsets.US_ASCII));
          }
        });
    server.start();
    cleanup.add(() -> server.stop(0));
    HttpClient tls =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(certificates.clientContext())
            .build();
    URI uri = URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/orders");
    HttpResponse<String> first =
        tls.send(request(uri, "tls", "x"), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> replay =
        tls.send(request(uri, "tls", "x"), HttpResponse.BodyHandlers.ofString());
    assertEquals(201, first.statusCode());
    assertTrue(first.body().startsWith("TLS"), first.body());
    assertEquals(List.of("status 201", "second status refused"), seen);
    assertEquals("true", replay.headers().firstValue("Idempotent-Replayed").orElseThrow());
    assertEquals(first.body(), replay.body());
  }

  /** One HTTP/1.1 connection spoken by hand, to see exactly when bytes arrive. */
  private static final class RawHttp implements AutoCloseable {
    private final Socket socket;

    RawHttp(HttpServer server) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
    }

    void post(String path, String key) throws IOException {
      String request =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice\r\n"
              + "Idempotency-Key: "
              + key
              + "\r\nContent-Length: 0\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
    }

    /** The status line and headers, up to the blank line. */
    String readHead() throws IOException {
      socket.setSoTimeout(10_000);
      StringBuilder head = new StringBuilder();
      while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
        int b = socket.getInputStream().read();
        if (b < 0) {
          throw new IOException("closed after " + head);
        }
        head.append((char) b);
      }
      return head.toString();
    }

    String readBytes(int count) throws IOException {
      socket.setSoTimeout(10_000);
      return new String(socket.getInputStream().readNBytes(count), StandardCharsets.ISO_8859_1);
    }

    /** Everything until the server closes the connection. */
    String readUntilClosed(Duration limit) throws IOException {
      socket.setSoTimeout((int) limit.toMillis());
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
