package io.hotkey.agent.instrument.servlet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencySettings;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.instrument.InstalledModules;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.realm.GenericPrincipal;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ValveBase;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Embedded Tomcat 10.1 (jakarta) over real sockets, instrumented in this JVM with the
 * transformation the agent installs (Byte Buddy's agent installed at run time). The application
 * registers a plain servlet and a filter; nothing in it knows about the agent.
 */
class TomcatServletIdempotencyTest {
  private static final int MAX_BODY = 4096;
  private static final AgentErrors ERRORS = new AgentErrors(0);
  private static final AtomicInteger runs = new AtomicInteger();
  private static final AtomicInteger filterRuns = new AtomicInteger();
  private static InstalledModules modules;
  private static Tomcat tomcat;
  private static IdempotencyEngine engine;
  private static int port;

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  static void start() throws Exception {
    engine =
        new IdempotencyEngine(
            new IdempotencySettings(
                RouteTable.parse("POST /orders/**"),
                "Idempotency-Key",
                List.of("Authorization"),
                false,
                Duration.ofHours(1),
                Duration.ofSeconds(30),
                MAX_BODY,
                StoreFailurePolicy.REJECT),
            new MemoryRecordStore(1 << 24));
    ServletBridge.activate(engine, ERRORS);
    modules = new InstalledModules(new ServletInstrumentationModule());

    Path base = Files.createTempDirectory("hotkey-tomcat");
    tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", base.toString());
    Tomcat.addServlet(context, "orders", new OrdersServlet()).setAsyncSupported(true);
    context.addServletMappingDecoded("/orders/*", "orders");
    context.addServletMappingDecoded("/other", "orders");
    FilterDef filter = new FilterDef();
    filter.setFilterName("counting");
    filter.setFilter(new CountingFilter());
    filter.setAsyncSupported("true");
    context.addFilterDef(filter);
    FilterMap map = new FilterMap();
    map.setFilterName("counting");
    map.addURLPattern("/*");
    context.addFilterMap(map);
    context.getPipeline().addValve(new HeaderAuthenticator());
    tomcat.start();
    port = connector.getLocalPort();
  }

  @AfterAll
  static void stop() throws Exception {
    ServletBridge.deactivate();
    if (modules != null) {
      modules.close();
    }
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
    if (engine != null) {
      engine.close();
    }
  }

  @BeforeEach
  void reset() {
    runs.set(0);
    filterRuns.set(0);
  }

  /** The application: counts runs, echoes the body it read, and behaves as headers ask. */
  static final class OrdersServlet extends HttpServlet {
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws ServletException, IOException {
      String mode = request.getHeader("X-Mode");
      mode = mode == null ? "" : mode;
      if (request.getDispatcherType() == DispatcherType.ASYNC) {
        // the dispatch an async cycle asked for writes the answer, as Spring MVC's does
        response.setContentType("text/plain");
        response.getWriter().write("async " + request.getAttribute("run"));
        return;
      }
      String body;
      if (mode.equals("form")) {
        body = "item=" + request.getParameter("item") + "&q=" + request.getParameter("q");
      } else if (mode.equals("reader")) {
        StringBuilder read = new StringBuilder();
        int c;
        while ((c = request.getReader().read()) != -1) {
          read.append((char) c);
        }
        body = read.toString();
      } else {
        body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      }
      int run = runs.incrementAndGet();
      if (mode.equals("slow")) {
        sleep(400);
      }
      if (mode.equals("throw")) {
        throw new ServletException("boom");
      }
      if (mode.startsWith("async")) {
        // "async": startAsync() writes to the container's own response; "async-wrapped":
        // startAsync(request,
        // response) writes through the response this call got, as Spring MVC does
        AsyncContext async =
            !mode.equals("async") ? request.startAsync(request, response) : request.startAsync();
        // another thread asks for the dispatch that writes the answer, or writes it and ends the
        // cycle, before this dispatch returns
        if (mode.equals("async-dispatched-before-return")) {
          request.setAttribute("run", run);
          onAnotherThread(async::dispatch);
          return;
        }
        if (mode.equals("async-done-before-return")) {
          onAnotherThread(
              () -> {
                writeAsyncAnswer(async, run);
                async.complete();
              });
          return;
        }
        async.start(
            () -> {
              sleep(300);
              writeAsyncAnswer(async, run);
              async.complete();
            });
        return;
      }
      response.setStatus(mode.equals("fail") ? 500 : 201);
      response.setContentType("application/json");
      response.addHeader("Set-Cookie", "session=" + run);
      response.addHeader("Location", "/orders/" + run);
      String json = "{\"order\":" + run + ",\"body\":\"" + body + "\"}";
      if (mode.equals("writer")) {
        response.setCharacterEncoding("UTF-8");
        response.getWriter().print(json);
        response.getWriter().println(" \u00e9\u20ac\ud83d\ude00");
      } else {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
      }
    }
  }

  static final class CountingFilter implements Filter {
    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      filterRuns.incrementAndGet();
      chain.doFilter(request, response);
    }
  }

  static void writeAsyncAnswer(AsyncContext async, int run) {
    try {
      async.getResponse().setContentType("text/plain");
      async.getResponse().getWriter().write("async " + run);
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  /** Runs {@code task} on a thread of its own and waits for it. */
  static void onAnotherThread(Runnable task) {
    Thread thread = new Thread(task);
    thread.start();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpResponse<byte[]> post(String path, String key, String body, String... headers)
      throws Exception {
    return client.send(request(path, key, body, headers), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpRequest request(String path, String key, String body, String... headers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      builder.header("Idempotency-Key", key);
    }
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return builder.build();
  }

  private static String text(HttpResponse<byte[]> response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  @Test
  void instrumentsTheContainerWithoutErrors() {
    assertTrue(modules.errors().isEmpty(), () -> "transformation errors: " + modules.errors());
    assertTrue(
        modules.transformed().contains("org.apache.catalina.core.ApplicationFilterChain"),
        () -> "transformed " + modules.transformed());
    assertTrue(
        modules.transformed().contains("jakarta.servlet.http.HttpServlet"),
        () -> "transformed " + modules.transformed());
  }

  @Test
  void runsOnceAndReplaysTheStoredAnswer() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> first = post("/orders", key, "{\"sku\":1}");
    assertEquals(201, first.statusCode(), () -> text(first));
    assertEquals("{\"order\":1,\"body\":\"{\"sku\":1}\"}", text(first));
    HttpResponse<byte[]> again = post("/orders", key, "{\"sku\":1}");
    assertEquals(201, again.statusCode());
    assertArrayEquals(first.body(), again.body());
    assertEquals("true", again.headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals("/orders/1", again.headers().firstValue("Location").orElse(null));
    assertEquals("application/json", again.headers().firstValue("Content-Type").orElse(null));
    assertTrue(again.headers().firstValue("Set-Cookie").isEmpty(), "Set-Cookie is never replayed");
    assertEquals(1, runs.get());
    assertEquals(1, filterRuns.get(), "a replay never reaches the application's filters");
    assertEquals(0, ERRORS.count());
  }

  @Test
  void concurrentDuplicatesRunOnce() throws Exception {
    String key = UUID.randomUUID().toString();
    List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      answers.add(
          client.sendAsync(
              request("/orders", key, "same", "X-Mode", "slow"),
              HttpResponse.BodyHandlers.ofByteArray()));
    }
    byte[] reference = null;
    int conflicts = 0;
    for (CompletableFuture<HttpResponse<byte[]>> answer : answers) {
      HttpResponse<byte[]> response = answer.get();
      if (response.statusCode() == 409) {
        conflicts++;
        assertTrue(response.headers().firstValue("Retry-After").isPresent());
        continue;
      }
      assertEquals(201, response.statusCode());
      if (reference == null) {
        reference = response.body();
      } else {
        assertArrayEquals(reference, response.body());
      }
    }
    assertEquals(1, runs.get());
    assertTrue(conflicts > 0);
    assertArrayEquals(reference, post("/orders", key, "same", "X-Mode", "slow").body());
  }

  @Test
  void errorsAnswersAndScopes() throws Exception {
    String key = UUID.randomUUID().toString();
    assertEquals(201, post("/orders", key, "a").statusCode());
    HttpResponse<byte[]> mismatch = post("/orders", key, "b");
    assertEquals(422, mismatch.statusCode());
    assertEquals(
        "application/problem+json", mismatch.headers().firstValue("Content-Type").orElse(null));
    assertTrue(text(mismatch).contains("\"status\":422"), () -> text(mismatch));
    HttpResponse<byte[]> invalid = post("/orders", "k".repeat(256), "a");
    assertEquals(400, invalid.statusCode());
    assertEquals(1, runs.get());
    // another caller with the same key runs on its own record
    HttpResponse<byte[]> other = post("/orders", key, "a", "Authorization", "Bearer other");
    assertEquals(201, other.statusCode());
    assertEquals(2, runs.get());
    // not a configured route: never intercepted
    post("/other", key, "a");
    post("/other", key, "a");
    assertEquals(4, runs.get());
  }

  @Test
  void theContainersPrincipalScopesARecord() throws Exception {
    String key = UUID.randomUUID().toString();
    // both send the same scope header; only the principal the container authenticated differs
    String alice = text(post("/orders", key, "pay", "X-User", "alice"));
    String bob = text(post("/orders", key, "pay", "X-User", "bob"));
    assertEquals(2, runs.get(), "one key sent by two principals is two records");
    assertEquals(alice, text(post("/orders", key, "pay", "X-User", "alice")));
    assertEquals(bob, text(post("/orders", key, "pay", "X-User", "bob")));
    assertEquals(2, runs.get(), "each principal's retry is replayed");
  }

  /** Authenticates as the X-User header says, where an authenticator valve would. */
  static final class HeaderAuthenticator extends ValveBase {
    HeaderAuthenticator() {
      super(true); // async-capable, as the chain it precedes
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
      String user = request.getHeader("X-User");
      if (user != null) {
        request.setUserPrincipal(new GenericPrincipal(user, List.of()));
      }
      getNext().invoke(request, response);
    }
  }

  @Test
  void serverErrorsAndExceptionsReleaseTheKey() throws Exception {
    String key = UUID.randomUUID().toString();
    assertEquals(500, post("/orders", key, "x", "X-Mode", "fail").statusCode());
    assertEquals(500, post("/orders", key, "x", "X-Mode", "throw").statusCode());
    assertEquals(201, post("/orders", key, "x").statusCode());
    assertEquals(
        "true", post("/orders", key, "x").headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals(3, runs.get());
  }

  @Test
  void theApplicationStillReadsItsBodyAnyWay() throws Exception {
    HttpResponse<byte[]> form =
        post(
            "/orders/form?q=query",
            UUID.randomUUID().toString(),
            "item=caf%C3%A9",
            "X-Mode",
            "form",
            "Content-Type",
            "application/x-www-form-urlencoded; charset=UTF-8");
    assertEquals(201, form.statusCode());
    assertTrue(text(form).contains("item=caf\u00e9&q=query"), () -> text(form));
    HttpResponse<byte[]> reader =
        post("/orders/r", UUID.randomUUID().toString(), "read me", "X-Mode", "reader");
    assertTrue(text(reader).contains("\"body\":\"read me\""), () -> text(reader));
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> written = post("/orders/w", key, "w", "X-Mode", "writer");
    HttpResponse<byte[]> replayed = post("/orders/w", key, "w", "X-Mode", "writer");
    assertArrayEquals(written.body(), replayed.body());
    assertEquals(
        written.headers().firstValue("Content-Type"),
        replayed.headers().firstValue("Content-Type"));
    assertEquals("true", replayed.headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals(3, runs.get());
  }

  @Test
  void asyncResponsesWrittenThroughTheWrappersAreStored() throws Exception {
    String key = UUID.randomUUID().toString();
    CompletableFuture<HttpResponse<byte[]>> first =
        client.sendAsync(
            request("/orders", key, "x", "X-Mode", "async-wrapped"),
            HttpResponse.BodyHandlers.ofByteArray());
    awaitRuns(1);
    HttpResponse<byte[]> during = post("/orders", key, "x", "X-Mode", "async-wrapped");
    assertEquals(
        409, during.statusCode(), () -> "a retry while the async cycle runs: " + text(during));
    assertEquals("async 1", text(first.get()));
    HttpResponse<byte[]> after = post("/orders", key, "x", "X-Mode", "async-wrapped");
    assertEquals("async 1", text(after));
    assertEquals("true", after.headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals(
        "text/plain;charset=ISO-8859-1", after.headers().firstValue("Content-Type").orElse(null));
    assertEquals(1, runs.get());
    assertEquals(0, ERRORS.count());
  }

  /**
   * Another thread completes the async cycle, or asks for the dispatch that writes the answer,
   * before the dispatch that started it returns: the answer is still stored and replayed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"async-done-before-return", "async-dispatched-before-return"})
  void anAsyncCycleEndedBeforeItsDispatchReturnsIsStored(String mode) throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> first = post("/orders", key, "x", "X-Mode", mode);
    assertEquals("async 1", text(first));
    HttpResponse<byte[]> again = post("/orders", key, "x", "X-Mode", mode);
    assertEquals("async 1", text(again));
    assertEquals("true", again.headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals(1, runs.get());
    assertEquals(0, ERRORS.count());
  }

  @Test
  void asyncResponsesWrittenPastTheAgentHoldTheKeyThenReleaseIt() throws Exception {
    String key = UUID.randomUUID().toString();
    long notStored = engine.meters().notStored();
    CompletableFuture<HttpResponse<byte[]>> first =
        client.sendAsync(
            request("/orders", key, "x", "X-Mode", "async"),
            HttpResponse.BodyHandlers.ofByteArray());
    awaitRuns(1);
    assertEquals(
        409,
        post("/orders", key, "x", "X-Mode", "async").statusCode(),
        "a retry while the async cycle runs");
    assertEquals("async 1", text(first.get()));
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (engine.meters().notStored() == notStored && System.nanoTime() < deadline) {
      Thread.sleep(
          5); // released when the async cycle completes, which may follow the response by a moment
    }
    assertEquals(notStored + 1, engine.meters().notStored());
    HttpResponse<byte[]> second = post("/orders", key, "x", "X-Mode", "async");
    assertEquals("async 2", text(second), "not stored: the retry runs");
    assertNull(second.headers().firstValue("Idempotent-Replayed").orElse(null));
  }

  private static void awaitRuns(int count) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (runs.get() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(count, runs.get());
  }

  @Test
  void javaxHelpersAreTheJakartaOnesRenamed() throws Exception {
    for (String helper : ServletBridge.HELPERS) {
      String text =
          new String(
              ServletBridge.ServletApi.JAVAX.helpers.renamedBytes(helper),
              StandardCharsets.ISO_8859_1);
      assertTrue(
          !text.contains("jakarta/servlet/") && !text.contains(ServletBridge.HELPER_PACKAGE),
          helper + " still names jakarta or its source package after renaming");
    }
  }

  @Test
  void bridgeNameAndPathDecoding() {
    assertEquals(ServletBridge.class.getName(), ServletBridge.CLASS_NAME);
    assertEquals("/orders/a b", ServletBridge.decodePath("/orders;jsessionid=1/a%20b"));
    assertEquals("/", ServletBridge.decodePath(""));
    assertEquals("/caf\u00e9+x%", ServletBridge.decodePath("/caf%C3%A9+x%"));
  }
}
