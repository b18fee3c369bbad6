package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Idempotency-Key proofs over real HTTP that {@link ServletIdempotencyIT} (bare servlet
 * containers), {@link JdkHttpIdempotencyIT} (the JDK's HttpServer) and {@link
 * SpringBootIdempotencyIT} (a Spring Boot application) share, and the HTTP plumbing they use beside
 * them. The application has a {@code POST <orders>} handler, on an idempotency route, whose runs
 * the test can count ({@link Runs}); it sleeps 500 ms on {@code X-Mode: slow}, answers 500 on
 * {@code fail}, throws on {@code throw}, and otherwise answers 201 with {@code Location:
 * <orders>/<run>}, a Set-Cookie and a JSON body that differs from run to run. The checks compare
 * the run count before and after, so they may follow other requests, and tally the outcomes the
 * agent must have counted ({@link #expect}; the {@code outcome} tags of {@code
 * hotkey.idempotency.requests}, which {@link #assertCounted} compares with what the application's
 * JMX or Prometheus endpoint says).
 */
final class IdempotencyOverHttp {
  static final String PAYLOAD = "{\"sku\":7}";

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /** How often the application's handler has run so far. */
  @FunctionalInterface
  interface Runs {
    int count() throws Exception;

    /** The count a GET of {@code url} answers as its body. */
    static Runs at(String url) {
      return () -> Integer.parseInt(get(url).trim());
    }
  }

  private final String name;
  private final String orders;
  private final Runs runs;
  private final boolean exceptionClosesConnection;
  private final String[] headers;
  private final Map<String, Long> expected;

  /**
   * @param base {@code http://host:port}
   * @param orders the path of the POST handler
   */
  IdempotencyOverHttp(String name, String base, String orders, Runs runs) {
    this(name, base + orders, runs, false, new String[0], new TreeMap<>());
  }

  private IdempotencyOverHttp(
      String name,
      String orders,
      Runs runs,
      boolean exceptionClosesConnection,
      String[] headers,
      Map<String, Long> expected) {
    this.name = name;
    this.orders = orders;
    this.runs = runs;
    this.exceptionClosesConnection = exceptionClosesConnection;
    this.headers = headers;
    this.expected = expected;
  }

  /** The same checks with these headers (name, value, ...) on every POST; the tally is shared. */
  IdempotencyOverHttp with(String... more) {
    String[] all = Arrays.copyOf(headers, headers.length + more.length);
    System.arraycopy(more, 0, all, headers.length, more.length);
    return new IdempotencyOverHttp(
        name + " " + String.join(" ", more),
        orders,
        runs,
        exceptionClosesConnection,
        all,
        expected);
  }

  /**
   * The same checks for a server that closes the connection without an answer when the handler
   * throws (the JDK HttpServer) instead of answering 500; the tally is shared.
   */
  IdempotencyOverHttp exceptionClosesConnection() {
    return new IdempotencyOverHttp(name, orders, runs, true, headers, expected);
  }

  /** Every shared proof, in order. */
  void proveAll() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> first = concurrentRequestsRunOnce(key);
    completedRequestIsReplayed(key, first);
    otherPayloadAndInvalidKeyAreRefused(key);
    failuresReleaseTheKey();
    keysAndCallersNeverShare();
    requestsWithoutKeyAllRun();
  }

  /**
   * 200 requests with one key: the handler (500 ms) runs once, every 409 is problem+json with a
   * Retry-After and every other answer is the first one; the second hundred starts once the first
   * has finished, so many of them are replays.
   *
   * @return one answer of the handler
   */
  HttpResponse<byte[]> concurrentRequestsRunOnce(String key) throws Exception {
    int before = runs();
    List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      if (i == 100) {
        CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
            .get(60, TimeUnit.SECONDS);
      }
      pending.add(sendAsync(request(key, PAYLOAD, "X-Mode", "slow")));
    }
    HttpResponse<byte[]> reference = null;
    int conflicts = 0;
    int answered = 0;
    int replays = 0;
    for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
      HttpResponse<byte[]> response = future.get(60, TimeUnit.SECONDS);
      if (response.statusCode() == 409) {
        conflicts++;
        String retryAfter = header(response, "Retry-After");
        assertNotNull(retryAfter, name + ": 409 has Retry-After");
        assertTrue(Long.parseLong(retryAfter) >= 1, name + ": Retry-After " + retryAfter);
        assertTrue(
            isProblem(response), () -> name + ": 409 is problem+json: " + response.headers().map());
        continue;
      }
      assertEquals(201, response.statusCode(), () -> name + ": " + text(response));
      answered++;
      replays += replayed(response) ? 1 : 0;
      if (reference == null) {
        reference = response;
      } else {
        assertArrayEquals(
            reference.body(), response.body(), name + ": every non-409 answer is byte-identical");
      }
    }
    assertNotNull(reference, name + ": some request got the handler's answer");
    assertEquals(
        before + 1, runs(), name + ": 200 concurrent requests with one key ran the handler once");
    System.out.println(
        "[it] "
            + name
            + ": 200 concurrent -> "
            + answered
            + " x 201 ("
            + replays
            + " replayed), "
            + conflicts
            + " x 409");
    assertTrue(replays > 0, name + ": requests sent after completion were replayed");
    assertEquals(answered - 1, replays, name + ": all but one 201 were replays");
    assertEquals(URI.create(orders).getPath() + "/" + (before + 1), header(reference, "Location"));
    expect("executed", 1);
    expect("stored", 1);
    expect("replayed", replays);
    expect("conflict", conflicts);
    return reference;
  }

  /** A retry after completion is the stored answer, with the marker and without Set-Cookie. */
  void completedRequestIsReplayed(String key, HttpResponse<byte[]> first) throws Exception {
    int before = runs();
    HttpResponse<byte[]> replay = send(request(key, PAYLOAD, "X-Mode", "slow"));
    assertEquals(201, replay.statusCode(), () -> name + ": " + text(replay));
    assertArrayEquals(first.body(), replay.body(), name + ": the replay is the first answer");
    assertTrue(replayed(replay), name + ": Idempotent-Replayed: true");
    assertEquals(header(first, "Location"), header(replay, "Location"));
    assertTrue(
        String.valueOf(header(replay, "Content-Type")).startsWith("application/json"),
        () -> name + ": " + replay.headers().map());
    assertTrue(
        replay.headers().firstValue("Set-Cookie").isEmpty(),
        name + ": Set-Cookie is never replayed");
    assertEquals(before, runs());
    expect("replayed", 1);
  }

  /** The same key with another payload: 422 problem+json; an invalid key (256 characters): 400. */
  void otherPayloadAndInvalidKeyAreRefused(String key) throws Exception {
    int before = runs();
    HttpResponse<byte[]> mismatch = send(request(key, "{\"sku\":8}"));
    assertEquals(422, mismatch.statusCode(), () -> name + ": " + text(mismatch));
    assertTrue(isProblem(mismatch), () -> name + ": " + mismatch.headers().map());
    HttpResponse<byte[]> invalid = send(request("k".repeat(256), PAYLOAD));
    assertEquals(400, invalid.statusCode(), () -> name + ": " + text(invalid));
    assertTrue(text(invalid).contains("\"status\":400"), () -> name + ": " + text(invalid));
    assertEquals(before, runs(), name + ": neither ran the handler");
    expect("mismatch", 1);
    expect("invalid_key", 1);
  }

  /**
   * A 500 and an exception (500, or a closed connection where {@link #exceptionClosesConnection})
   * release the key; the retry then runs and is stored.
   */
  void failuresReleaseTheKey() throws Exception {
    int before = runs();
    String key = UUID.randomUUID().toString();
    assertEquals(500, send(request(key, "x", "X-Mode", "fail")).statusCode(), name + ": 500");
    assertEquals(
        exceptionClosesConnection ? -1 : 500,
        statusOrClosed(request(key, "x", "X-Mode", "throw")),
        name + ": what the server does when the handler throws (-1: closed the connection)");
    HttpResponse<byte[]> recovered = send(request(key, "x"));
    assertEquals(201, recovered.statusCode(), () -> name + ": " + text(recovered));
    assertFalse(replayed(recovered), name + ": the retry after a 500 and an exception ran");
    assertEquals(
        before + 3, runs(), name + ": the 500, the exception and the retry each ran the handler");
    HttpResponse<byte[]> again = send(request(key, "x"));
    assertArrayEquals(
        recovered.body(), again.body(), name + ": the retry that succeeded is replayed");
    assertTrue(replayed(again));
    assertEquals(before + 3, runs());
    expect("executed", 3);
    expect("released", 2);
    expect("stored", 1);
    expect("replayed", 1);
  }

  /**
   * Two keys with one payload run twice; one key from two callers (Authorization) runs once per
   * caller.
   */
  void keysAndCallersNeverShare() throws Exception {
    int before = runs();
    HttpResponse<byte[]> one = send(request(UUID.randomUUID().toString(), PAYLOAD));
    HttpResponse<byte[]> two = send(request(UUID.randomUUID().toString(), PAYLOAD));
    assertEquals(201, one.statusCode(), () -> name + ": " + text(one));
    assertEquals(201, two.statusCode(), () -> name + ": " + text(two));
    assertFalse(replayed(two), name + ": another key with the same payload ran");
    assertFalse(Arrays.equals(one.body(), two.body()), name + ": another key is another order");
    assertEquals(before + 2, runs(), name + ": each key ran its own request");

    String shared = UUID.randomUUID().toString();
    HttpResponse<byte[]> alice = send(request(shared, "y", "Authorization", "Bearer alice"));
    HttpResponse<byte[]> bob = send(request(shared, "y", "Authorization", "Bearer bob"));
    assertEquals(201, alice.statusCode(), () -> name + ": " + text(alice));
    assertEquals(201, bob.statusCode(), () -> name + ": " + text(bob));
    assertFalse(replayed(bob), name + ": bob's request ran");
    assertEquals(before + 4, runs(), name + ": each caller ran its own request");
    HttpResponse<byte[]> aliceAgain = send(request(shared, "y", "Authorization", "Bearer alice"));
    assertArrayEquals(alice.body(), aliceAgain.body());
    assertTrue(replayed(aliceAgain));
    assertFalse(Arrays.equals(alice.body(), bob.body()), name + ": bob never gets alice's answer");
    assertEquals(before + 4, runs());
    expect("executed", 4);
    expect("stored", 4);
    expect("replayed", 1);
  }

  /** Without a key (not required by default) the route passes through: every request runs. */
  void requestsWithoutKeyAllRun() throws Exception {
    int before = runs();
    HttpResponse<byte[]> first = send(request(null, PAYLOAD));
    HttpResponse<byte[]> second = send(request(null, PAYLOAD));
    assertEquals(201, first.statusCode(), () -> name + ": " + text(first));
    assertEquals(201, second.statusCode(), () -> name + ": " + text(second));
    assertFalse(replayed(second));
    assertFalse(Arrays.equals(first.body(), second.body()), name + ": the second request ran too");
    assertEquals(before + 2, runs(), name + ": requests without a key are not deduplicated");
    expect("passed_through", 2);
  }

  /**
   * A POST to the orders path with {@link #with these} and the given headers; {@code key} null
   * sends none.
   */
  HttpRequest request(String key, String body, String... more) {
    String[] all = Arrays.copyOf(headers, headers.length + more.length);
    System.arraycopy(more, 0, all, headers.length, more.length);
    return post(orders, key, body, all);
  }

  /** How often the handler ran. */
  int runs() throws Exception {
    return runs.count();
  }

  /** Adds {@code count} to what the agent must have counted under {@code outcome}. */
  void expect(String outcome, long count) {
    expected.merge(outcome, count, Long::sum);
  }

  /**
   * The outcomes counted so far by the checks (outcome tag to count; outcomes never seen are
   * absent).
   */
  Map<String, Long> expected() {
    return new TreeMap<>(expected);
  }

  /**
   * The agent counted, outcome by outcome, exactly what the checks caused: every expected outcome
   * is there with its count, and every other one is 0. A nested filter or dispatch taken for a
   * request of its own would show up as extra executions, conflicts or releases.
   *
   * @param counted outcome tag to count, as the application's JMX attribute or meter endpoint
   *     reports it
   */
  void assertCounted(String source, Map<String, Long> counted) {
    Map<String, Long> want = expected();
    System.out.println("[it] " + name + ": " + source + " " + counted);
    assertTrue(
        counted.keySet().containsAll(want.keySet()),
        () ->
            name + ": outcomes missing from " + source + ": expected " + want + ", got " + counted);
    for (Map.Entry<String, Long> outcome : counted.entrySet()) {
      assertEquals(
          want.getOrDefault(outcome.getKey(), 0L),
          outcome.getValue(),
          () ->
              name
                  + ": "
                  + source
                  + " outcome "
                  + outcome.getKey()
                  + ": expected "
                  + want
                  + ", got "
                  + counted);
    }
  }

  /**
   * The agent's JMX attribute IdempotencyOutcomes, as the test applications answer it on {@code GET
   * <base>/outcomes}.
   */
  static Map<String, Long> jmxOutcomes(String base) throws Exception {
    Map<String, Long> outcomes = new LinkedHashMap<>();
    for (String line : get(base + "/outcomes").split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        outcomes.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
      }
    }
    assertFalse(outcomes.isEmpty(), "JMX IdempotencyOutcomes is empty");
    return outcomes;
  }

  /**
   * A JSON POST to {@code url} with these headers (name, value, ...); {@code key} null sends no
   * Idempotency-Key.
   */
  static HttpRequest post(String url, String key, String body, String... headers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    if (key != null) {
      builder.header("Idempotency-Key", key);
    }
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return builder.build();
  }

  static HttpResponse<byte[]> send(HttpRequest request) throws Exception {
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  static CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest request) {
    return CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  /** The status, or -1 when the server closed the connection without answering. */
  static int statusOrClosed(HttpRequest request) throws Exception {
    try {
      return send(request).statusCode();
    } catch (IOException closed) {
      return -1;
    }
  }

  /** A GET of {@code url} that must answer 200; its body as text. */
  static String get(String url) throws Exception {
    HttpResponse<byte[]> response =
        send(HttpRequest.newBuilder(URI.create(url)).GET().timeout(Duration.ofSeconds(20)).build());
    assertEquals(200, response.statusCode(), () -> "GET " + url + " answered " + text(response));
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  static String text(HttpResponse<byte[]> response) {
    return response.statusCode() + " " + new String(response.body(), StandardCharsets.UTF_8);
  }

  static String header(HttpResponse<?> response, String name) {
    return response.headers().firstValue(name).orElse(null);
  }

  static boolean replayed(HttpResponse<?> response) {
    return "true".equals(header(response, "Idempotent-Replayed"));
  }

  static boolean isProblem(HttpResponse<?> response) {
    return String.valueOf(header(response, "Content-Type")).startsWith("application/problem+json");
  }
}
