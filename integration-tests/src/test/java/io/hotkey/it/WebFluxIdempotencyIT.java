package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.PAYLOAD;
import static io.hotkey.it.IdempotencyOverHttp.get;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.sendAsync;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * Idempotency-Key in a plain Spring WebFlux application on Reactor Netty (spring-webflux-app/: Boot
 * 3, functional routes and an annotated controller) run with {@code -javaagent:} and no code
 * change, once per store, each start serving every check: the proofs shared with the servlet
 * containers and the JDK server ({@link IdempotencyOverHttp}) on the functional route and on the
 * controller, a client that disconnects while its request runs, an answer streamed in chunks, two
 * principals (set by the application's own {@code WebFilter}) that never share a record, the rest
 * of the playbook ({@link PlaybookOverHttp}: session cookies, the keyless guard, tokens), and the
 * agent's {@code hotkey.idempotency.requests} counters in {@code /actuator/prometheus}, which must
 * equal, outcome by outcome, what the requests caused. With either store the application runs under
 * Reactor's BlockHound, which must see no blocking call on an event loop or on Reactor's parallel
 * scheduler (the memory store decides on the event loop itself); with the redis store, the event
 * loops must keep answering while Redis holds every claim.
 */
class WebFluxIdempotencyIT extends RedisTestBase {
  private static final Pattern OUTCOME =
      Pattern.compile("(?m)^hotkey_idempotency_requests_total\\{outcome=\"(\\w+)\"\\} (\\S+)$");

  @Test
  void memoryStore() throws Exception {
    try (SpringBootApp app = start("webflux-memory", BLOCKHOUND, Map.of())) {
      proveIdempotency(app, "webflux memory");
      neverBlocked(app);
    }
  }

  @Test
  void redisStore() throws Exception {
    try (SpringBootApp app =
        start(
            "webflux-redis",
            BLOCKHOUND,
            Map.of(
                "hotkey.idempotency.store",
                "redis",
                "hotkey.idempotency.redis.uri",
                "redis://" + redis.host() + ":" + redis.port()))) {
      IdempotencyOverHttp http = proveIdempotency(app, "webflux redis");
      try (Jedis jedis = redis.jedis()) {
        assertFalse(jedis.keys("hotkey:idem:*").isEmpty(), "the records are in Redis");
      }
      handlersStayOnTheEventLoop(app, http);
      eventLoopsNeverWaitForTheStore(app, http);
      aClientGoneWhileItsClaimWaitsReleasesIt(app, http);
      reconnectsAfterRedisRestarts(http);
      handlersStayOnTheEventLoop(app, http);
      neverBlocked(app);
    }
  }

  /** BlockHound watched every request and saw no blocking call where none may be. */
  private static void neverBlocked(SpringBootApp app) {
    ChildRun end = app.snapshot();
    assertTrue(
        end.stderrContains("[blockhound] installed"), () -> "no BlockHound" + end.describe());
    assertTrue(
        end.stderr().stream().noneMatch(line -> line.contains("[blockhound] blocking call")),
        () -> "a thread that must not block blocked" + end.describe());
  }

  /**
   * The application under Reactor's BlockHound (its {@code BlockingCheck}): a blocking call on an
   * event loop or on Reactor's parallel scheduler is printed and fails.
   */
  private static final List<String> BLOCKHOUND =
      List.of("-XX:+AllowRedefinitionToAddDeleteMethods", "-Dwebflux-app.blockhound=true");

  private static SpringBootApp start(
      String name, List<String> jvmOptions, Map<String, String> store) throws Exception {
    Map<String, String> properties = new TreeMap<>(PlaybookOverHttp.PROPERTIES);
    properties.put(
        "hotkey.idempotency.routes", "POST /orders, POST /annotated/orders, POST /orders/stream");
    properties.put("hotkey.report.interval", "0");
    properties.putAll(store);
    SpringBootApp app =
        SpringBootApp.start(name, SpringBootApp.webfluxJar(), jvmOptions, properties);
    try {
      app.awaitReady(Duration.ofSeconds(150));
    } catch (Throwable t) {
      app.close();
      throw t;
    }
    return app;
  }

  /** The checks of the class comment but the event loops'; returns their tally. */
  private static IdempotencyOverHttp proveIdempotency(SpringBootApp app, String label)
      throws Exception {
    long started = System.nanoTime();
    IdempotencyOverHttp.Runs runs = IdempotencyOverHttp.Runs.at(app.base() + "/orders/runs");
    IdempotencyOverHttp functional =
        new IdempotencyOverHttp(label + " functional", app.base(), "/orders", runs);
    functional.proveAll();
    IdempotencyOverHttp annotated =
        new IdempotencyOverHttp(label + " controller", app.base(), "/annotated/orders", runs);
    annotated.proveAll();
    annotated.expected().forEach(functional::expect);

    disconnectReleasesTheKey(app, functional);
    streamedAnswerIsStoredOnceSent(app, functional);
    principalsNeverShare(functional);
    new PlaybookOverHttp(label, app.base(), functional).proveAll();

    String prometheus = get(app.base() + "/actuator/prometheus");
    functional.assertCounted("/actuator/prometheus", outcomes(prometheus));
    assertEquals(0.0, SpringBootIT.sample(prometheus, "hotkey_agent_errors_total"), "agent errors");
    ChildRun end = app.snapshot();
    assertTrue(end.agentActiveLine(), () -> "no [hotkey] active line" + end.describe());
    assertTrue(
        end.stderrContains("[hotkey] instrumented " + ADAPTER), () -> "not woven" + end.describe());
    assertTrue(
        end.stderrContains("[hotkey] instrumented " + DISPATCHER),
        () -> "not woven" + end.describe());
    assertTrue(
        end.stderr().stream().noneMatch(l -> l.contains("[hotkey] internal error")),
        () -> "agent internal errors" + end.describe());
    System.out.println(
        "[it] "
            + label
            + ": "
            + functional.runs()
            + " runs; checks took "
            + (System.nanoTime() - started) / 1_000_000
            + "ms");
    return functional;
  }

  private static final String ADAPTER =
      "org.springframework.web.server.adapter.HttpWebHandlerAdapter";

  private static final String DISPATCHER = "org.springframework.web.reactive.DispatcherHandler";

  /**
   * A client sends a slow keyed order and goes away while it runs: Reactor Netty cancels the
   * handler's chain, which releases the claim, so the client's retry runs the order again (after at
   * most a few 409s while the release is under way) and is then replayed.
   */
  static void disconnectReleasesTheKey(SpringBootApp app, IdempotencyOverHttp http)
      throws Exception {
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    try (Socket unused = keyedOrderOnARawSocket(app, key, "X-Mode: slow\r\n")) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (http.runs() == before) {
        assertTrue(System.nanoTime() < deadline, "the slow order never started");
        Thread.sleep(10);
      }
    } // the client goes away while the handler waits its 500 ms
    int conflicts = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    HttpResponse<byte[]> retry = send(http.request(key, PAYLOAD));
    while (retry.statusCode() == 409) {
      conflicts++;
      assertTrue(System.nanoTime() < deadline, "the disconnected request's claim was kept");
      Thread.sleep(20);
      retry = send(http.request(key, PAYLOAD));
    }
    HttpResponse<byte[]> answered = retry;
    assertEquals(201, answered.statusCode(), () -> text(answered));
    assertFalse(replayed(answered), "the retry after the disconnect ran the order");
    assertEquals(before + 2, http.runs(), "the disconnected run and the retry");
    assertTrue(replayed(send(http.request(key, PAYLOAD))), "the retry's answer is stored");
    http.expect("executed", 2);
    http.expect("released", 1);
    http.expect("conflict", conflicts);
    http.expect("stored", 1);
    http.expect("replayed", 1);
  }

  /**
   * One key and body from two principals, which the application's {@code WebFilter} authenticates
   * from {@code X-User} (no scope header, no cookie): each runs its own request, each gets its own
   * answer replayed.
   */
  static void principalsNeverShare(IdempotencyOverHttp http) throws Exception {
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> alice = send(http.request(key, PAYLOAD, "X-User", "alice"));
    HttpResponse<byte[]> bob = send(http.request(key, PAYLOAD, "X-User", "bob"));
    assertEquals(201, alice.statusCode(), () -> text(alice));
    assertEquals(201, bob.statusCode(), () -> text(bob));
    assertFalse(replayed(bob), "bob's request ran: another principal is another caller");
    assertEquals(before + 2, http.runs(), "one run per principal");
    HttpResponse<byte[]> aliceAgain = send(http.request(key, PAYLOAD, "X-User", "alice"));
    assertTrue(replayed(aliceAgain), "alice's retry is replayed");
    assertEquals(text(alice), text(aliceAgain), "alice gets her own answer");
    assertFalse(text(alice).equals(text(bob)), "bob never gets alice's answer");
    assertEquals(before + 2, http.runs());
    http.expect("executed", 2);
    http.expect("stored", 2);
    http.expect("replayed", 1);
  }

  /**
   * An answer written as a stream of chunks passes through as written and is stored once sent (a
   * retry at that instant may get 409): the retry then gets it byte for byte, marked.
   */
  private static void streamedAnswerIsStoredOnceSent(SpringBootApp app, IdempotencyOverHttp http)
      throws Exception {
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    String url = app.base() + "/orders/stream";
    HttpResponse<byte[]> first = send(IdempotencyOverHttp.post(url, key, PAYLOAD));
    assertEquals(200, first.statusCode(), () -> text(first));
    assertTrue(
        first.headers().firstValue("Content-Length").isEmpty(), "the answer was sent chunked");
    int conflicts = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    HttpResponse<byte[]> retry = send(IdempotencyOverHttp.post(url, key, PAYLOAD));
    while (retry.statusCode() == 409) {
      conflicts++;
      assertTrue(System.nanoTime() < deadline, "the streamed answer was never stored");
      Thread.sleep(20);
      retry = send(IdempotencyOverHttp.post(url, key, PAYLOAD));
    }
    HttpResponse<byte[]> replay = retry;
    assertTrue(replayed(replay), () -> "the retry is the stored stream: " + text(replay));
    assertEquals(text(first), text(replay));
    assertEquals(before + 1, http.runs(), "the streamed order ran once");
    http.expect("executed", 1);
    http.expect("stored", 1);
    http.expect("conflict", conflicts);
    http.expect("replayed", 1);
  }

  /**
   * Redis holds every command for 3 s (CLIENT PAUSE) while 16 keyed orders, on 16 connections
   * spread over every event loop, wait for their claims: plain requests on fresh connections are
   * still answered at once, so no claim holds an event-loop thread.
   */
  private void eventLoopsNeverWaitForTheStore(SpringBootApp app, IdempotencyOverHttp http)
      throws Exception {
    URI base = URI.create(app.base());
    List<CompletableFuture<HttpResponse<byte[]>>> claims = new ArrayList<>();
    try (Jedis admin = redis.jedis()) {
      admin.clientPause(3000, ClientPauseMode.ALL);
      for (int i = 0; i < 16; i++) {
        claims.add(sendAsync(http.request(UUID.randomUUID().toString(), PAYLOAD)));
      }
      // the claims reach the server and wait on Redis (nothing to poll for: Redis is paused)
      Thread.sleep(300);
      long pausedUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2400);
      for (int i = 0; i < 8; i++) {
        long start = System.nanoTime();
        String status = rawGet(base, "/orders/runs");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(status.startsWith("HTTP/1.1 200"), status);
        assertTrue(
            System.nanoTime() < pausedUntil,
            "the requests on fresh connections took until Redis resumed (last: " + millis + "ms)");
      }
    }
    for (CompletableFuture<HttpResponse<byte[]>> claim : claims) {
      int status = claim.get(60, TimeUnit.SECONDS).statusCode();
      assertTrue(status == 201 || status == 503, "a paused claim ends in 201 or 503: " + status);
    }
  }

  /**
   * The redis store's calls go out and come back on the event loop serving the request: after a
   * claim the handler runs on a {@code reactor-http-} loop, the answer is stored before it is sent
   * (replayed at once), and no store thread was ever started.
   */
  private static void handlersStayOnTheEventLoop(SpringBootApp app, IdempotencyOverHttp http)
      throws Exception {
    for (int i = 0; i < 8; i++) {
      String key = UUID.randomUUID().toString();
      HttpResponse<byte[]> first = send(http.request(key, PAYLOAD));
      assertEquals(201, first.statusCode(), () -> text(first));
      String thread = first.headers().firstValue("X-Handler-Thread").orElse("");
      assertTrue(thread.startsWith("reactor-http-"), "the handler ran on an event loop: " + thread);
      assertTrue(replayed(send(http.request(key, PAYLOAD))), "stored before it was sent");
    }
    String threads = get(app.base() + "/threads");
    assertFalse(
        threads.contains("hotkey-idempotency-store-"), "a store thread was started:\n" + threads);
  }

  /**
   * Sends a keyed order on a socket of its own and returns the socket, which the caller closes to
   * go away before the answer.
   */
  private static Socket keyedOrderOnARawSocket(SpringBootApp app, String key, String extraHeaders)
      throws IOException {
    URI base = URI.create(app.base());
    byte[] body = PAYLOAD.getBytes(StandardCharsets.UTF_8);
    Socket socket = new Socket(base.getHost(), base.getPort());
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST /orders HTTP/1.1\r\nHost: "
                + base.getHost()
                + "\r\nContent-Type: application/json\r\nIdempotency-Key: "
                + key
                + "\r\n"
                + extraHeaders
                + "Content-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return socket;
  }

  /**
   * A client sends a keyed order while Redis holds its claim (CLIENT PAUSE) and goes away before
   * the claim is answered: the claim Redis then makes is released, so the client's retry runs the
   * order once (after at most a few 409s while the release is under way) instead of meeting 409 for
   * the whole lease.
   */
  private void aClientGoneWhileItsClaimWaitsReleasesIt(SpringBootApp app, IdempotencyOverHttp http)
      throws Exception {
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    try (Jedis admin = redis.jedis()) {
      admin.clientPause(1500, ClientPauseMode.ALL);
    }
    try (Socket unused = keyedOrderOnARawSocket(app, key, "")) {
      Thread.sleep(300); // the claim reaches Redis and waits (nothing to poll for: it is paused)
    } // the client goes away before Redis answers the claim
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    HttpResponse<byte[]> retry = send(http.request(key, PAYLOAD));
    while (retry.statusCode() == 409 || retry.statusCode() == 503) {
      assertTrue(System.nanoTime() < deadline, "the gone client's claim was kept");
      Thread.sleep(50);
      retry = send(http.request(key, PAYLOAD));
    }
    HttpResponse<byte[]> answered = retry;
    assertEquals(201, answered.statusCode(), () -> text(answered));
    assertFalse(replayed(answered), "the gone client's order never ran, so nothing to replay");
    assertEquals(before + 1, http.runs(), "only the retry ran the order");
  }

  /**
   * Redis dies while claims wait for it (held by CLIENT PAUSE) and comes back: those claims and the
   * ones sent while it is down are answered (503, or passed through as the store-failure policy
   * says), none hangs; once Redis is back the event loops connect again and keyed requests are
   * deduplicated as before.
   */
  private void reconnectsAfterRedisRestarts(IdempotencyOverHttp http) throws Exception {
    List<CompletableFuture<HttpResponse<byte[]>>> cut = new ArrayList<>();
    try {
      try (Jedis admin = redis.jedis()) {
        admin.clientPause(10_000, ClientPauseMode.ALL);
      }
      for (int i = 0; i < 4; i++) {
        cut.add(sendAsync(http.request(UUID.randomUUID().toString(), PAYLOAD)));
      }
      Thread.sleep(300); // the claims reach Redis and wait (nothing to poll for: it is paused)
      redis.stop();
      for (int i = 0; i < 4; i++) {
        cut.add(sendAsync(http.request(UUID.randomUUID().toString(), PAYLOAD)));
      }
      for (CompletableFuture<HttpResponse<byte[]>> claim : cut) {
        HttpResponse<byte[]> answer = claim.get(10, TimeUnit.SECONDS);
        assertTrue(
            answer.statusCode() == 503 || (answer.statusCode() == 201 && !replayed(answer)),
            () -> "with Redis gone: " + text(answer));
      }
    } finally {
      redis.restart();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      String key = UUID.randomUUID().toString();
      HttpResponse<byte[]> answer = send(http.request(key, PAYLOAD));
      if (answer.statusCode() == 201 && replayed(send(http.request(key, PAYLOAD)))) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "never deduplicated again after Redis restarted");
      Thread.sleep(20);
    }
  }

  /** A GET on a connection of its own (the server assigns it an event loop); its status line. */
  private static String rawGet(URI base, String path) throws Exception {
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) != -1 && c != '\r') {
        line.append((char) c);
      }
      return line.toString();
    }
  }

  /** The agent's {@code hotkey_idempotency_requests_total} by outcome, from a Prometheus page. */
  static Map<String, Long> outcomes(String prometheus) {
    Map<String, Long> counted = new TreeMap<>();
    Matcher m = OUTCOME.matcher(prometheus);
    while (m.find()) {
      counted.put(m.group(1), (long) Double.parseDouble(m.group(2)));
    }
    return counted;
  }
}
