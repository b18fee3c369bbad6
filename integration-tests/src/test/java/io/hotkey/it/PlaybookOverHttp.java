package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.header;
import static io.hotkey.it.IdempotencyOverHttp.isProblem;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.sendAsync;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rest of the playbook over real HTTP, shared by the JDK server, Tomcat 11 and 9 and Spring
 * Boot: records scoped by session cookie, the keyless guard, and server-issued tokens. The
 * application runs with {@link #PROPERTIES} besides its key routes; {@code POST <orders>/checkout}
 * and {@code POST <orders>/pay} reach its order handler, and every other path a handler of its own,
 * so the token endpoint is reachable. Outcomes are tallied on the {@link IdempotencyOverHttp} the
 * checks are given, for its {@link IdempotencyOverHttp#assertCounted}.
 */
final class PlaybookOverHttp {
  static final Duration WINDOW = Duration.ofSeconds(5);
  static final Duration TOKEN_TTL = Duration.ofSeconds(3);
  static final String TOKEN_ENDPOINT = "/idempotency-tokens";

  /** What the application runs with, beside its {@code hotkey.idempotency.routes}. */
  static final Map<String, String> PROPERTIES =
      Map.of(
          "hotkey.idempotency.dedupe-routes", "POST /orders/checkout",
          "hotkey.idempotency.dedupe-window", WINDOW.toSeconds() + "s",
          "hotkey.idempotency.token-endpoint", "POST " + TOKEN_ENDPOINT,
          "hotkey.idempotency.token-routes", "POST /orders/pay",
          "hotkey.idempotency.token-ttl", TOKEN_TTL.toSeconds() + "s");

  private static final Pattern TOKEN_JSON =
      Pattern.compile("\\{\"token\":\"([A-Za-z0-9_-]{32})\",\"expiresInSeconds\":(\\d+)\\}");

  private final String name;
  private final String base;
  private final IdempotencyOverHttp http;

  /**
   * @param base {@code http://host:port} of the application
   * @param http its key checks, whose runs counter and tally these checks share
   */
  PlaybookOverHttp(String name, String base, IdempotencyOverHttp http) {
    this.name = name;
    this.base = base;
    this.http = http;
  }

  void proveAll() throws Exception {
    cookieSessionsNeverShare();
    keylessDuplicatesRunOnceInsideTheWindow();
    tokenLifeCycle();
    twoHundredUsesOfOneTokenRunOnce();
    badInputIs400();
  }

  /** One key from two cookie sessions, without Authorization: each runs, each replays its own. */
  void cookieSessionsNeverShare() throws Exception {
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    String alice = "JSESSIONID=alice-" + UUID.randomUUID();
    String bob = "JSESSIONID=bob-" + UUID.randomUUID();
    HttpResponse<byte[]> fromAlice = send(http.request(key, "{\"sku\":1}", "Cookie", alice));
    HttpResponse<byte[]> fromBob = send(http.request(key, "{\"sku\":1}", "Cookie", bob));
    assertEquals(201, fromAlice.statusCode(), () -> name + ": " + text(fromAlice));
    assertEquals(201, fromBob.statusCode(), () -> name + ": " + text(fromBob));
    assertFalse(replayed(fromBob), name + ": bob's session runs its own request");
    assertFalse(Arrays.equals(fromAlice.body(), fromBob.body()), name + ": bob gets his own");
    HttpResponse<byte[]> aliceAgain = send(http.request(key, "{\"sku\":1}", "Cookie", alice));
    assertTrue(replayed(aliceAgain));
    assertArrayEquals(fromAlice.body(), aliceAgain.body(), name + ": alice gets hers");
    assertEquals(before + 2, http.runs(), name + ": one run per session");
    http.expect("executed", 2);
    http.expect("stored", 2);
    http.expect("replayed", 1);
  }

  /**
   * 200 identical keyless submits of one session: one run, the others 409 while it runs or its
   * answer replayed; another body runs; the same body after the window runs.
   */
  void keylessDuplicatesRunOnceInsideTheWindow() throws Exception {
    int before = http.runs();
    String session = "SESSION=" + UUID.randomUUID();
    String body = "{\"cart\":" + System.nanoTime() + "}";
    List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      pending.add(sendAsync(checkout(body, session, "X-Mode", "slow")));
    }
    int conflicts = 0;
    int deduplicated = 0;
    HttpResponse<byte[]> first = null;
    for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
      HttpResponse<byte[]> response = future.get(60, TimeUnit.SECONDS);
      if (response.statusCode() == 409) {
        conflicts++;
        assertNotNull(header(response, "Retry-After"), name + ": 409 has Retry-After");
        assertTrue(isProblem(response), name + ": 409 is problem+json");
      } else {
        assertEquals(201, response.statusCode(), () -> name + ": " + text(response));
        if (replayed(response)) {
          deduplicated++;
        } else {
          assertEquals(null, first, name + ": only one submit ran");
          first = response;
        }
      }
    }
    assertNotNull(first, name + ": one submit ran");
    assertEquals(before + 1, http.runs(), name + ": 200 identical submits ran once");
    HttpResponse<byte[]> duplicate = send(checkout(body, session));
    assertTrue(
        replayed(duplicate), () -> name + ": a duplicate after the answer: " + text(duplicate));
    assertArrayEquals(first.body(), duplicate.body());
    HttpResponse<byte[]> other = send(checkout(body + " ", session));
    assertFalse(replayed(other), name + ": another body runs");
    Thread.sleep(WINDOW.toMillis() + 300);
    HttpResponse<byte[]> later = send(checkout(body, session));
    assertEquals(201, later.statusCode(), () -> name + ": " + text(later));
    assertFalse(replayed(later), name + ": after the window the same submit runs again");
    assertEquals(before + 3, http.runs());
    System.out.println(
        "[it] "
            + name
            + ": 200 identical keyless submits -> 1 run, "
            + conflicts
            + " x 409, "
            + deduplicated
            + " replayed");
    http.expect("executed", 3);
    http.expect("stored", 3);
    http.expect("conflict", conflicts);
    http.expect("deduplicated", deduplicated + 1);
  }

  /** Issue, use, replay, expiry, a forged token and another session's. */
  void tokenLifeCycle() throws Exception {
    int before = http.runs();
    String alice = "JSESSIONID=" + UUID.randomUUID();
    String token = issue(alice);
    HttpResponse<byte[]> paid = send(pay(token, "{\"amount\":5}", alice));
    assertEquals(201, paid.statusCode(), () -> name + ": " + text(paid));
    assertFalse(replayed(paid));
    HttpResponse<byte[]> retry = send(pay(token, "{\"amount\":5}", alice));
    assertTrue(replayed(retry), () -> name + ": a spent token replays: " + text(retry));
    assertArrayEquals(paid.body(), retry.body());
    assertEquals(before + 1, http.runs());

    assertProblem(send(pay(null, "{}", alice)), 400, "token-missing");
    assertProblem(send(pay("not-a-token", "{}", alice)), 400, "token-unknown");
    assertProblem(send(pay(forged(), "{}", alice)), 400, "token-unknown");
    String bobs = issue("JSESSIONID=" + UUID.randomUUID());
    assertProblem(send(pay(bobs, "{}", alice)), 400, "token-wrong-caller");
    String expiring = issue(alice);
    Thread.sleep(TOKEN_TTL.toMillis() + 300);
    assertProblem(send(pay(expiring, "{}", alice)), 400, "token-unknown");
    assertEquals(before + 1, http.runs(), name + ": no refused token ran the handler");
    http.expect("token_issued", 3);
    http.expect("executed", 1);
    http.expect("stored", 1);
    http.expect("replayed", 1);
    http.expect("token_missing", 1);
    http.expect("token_unknown", 3);
    http.expect("token_wrong_caller", 1);
  }

  /** 200 concurrent uses of one token: one run, the rest 409 or the replayed answer. */
  void twoHundredUsesOfOneTokenRunOnce() throws Exception {
    int before = http.runs();
    String session = "SESSION=" + UUID.randomUUID();
    String token = issue(session);
    List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      pending.add(sendAsync(pay(token, "{\"amount\":9}", session, "X-Mode", "slow")));
    }
    int conflicts = 0;
    int replays = 0;
    for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
      HttpResponse<byte[]> response = future.get(60, TimeUnit.SECONDS);
      if (response.statusCode() == 409) {
        conflicts++;
      } else {
        assertEquals(201, response.statusCode(), () -> name + ": " + text(response));
        replays += replayed(response) ? 1 : 0;
      }
    }
    assertEquals(before + 1, http.runs(), name + ": 200 uses of one token ran once");
    assertEquals(199, conflicts + replays);
    http.expect("token_issued", 1);
    http.expect("executed", 1);
    http.expect("stored", 1);
    http.expect("conflict", conflicts);
    http.expect("replayed", replays);
  }

  /** An oversized session cookie and a malformed key are answered 400 without running. */
  void badInputIs400() throws Exception {
    int before = http.runs();
    String huge = "JSESSIONID=" + "s".repeat(5000);
    assertProblem(
        send(http.request(UUID.randomUUID().toString(), "{}", "Cookie", huge)),
        400,
        "invalid-cookie");
    assertProblem(send(pay("\"half", "{}", "SESSION=x")), 400, "invalid-key");
    assertEquals(before, http.runs());
    http.expect("invalid_cookie", 1);
    http.expect("invalid_key", 1);
  }

  /** Asks the token endpoint with this session; checks the answer and returns the token. */
  String issue(String cookie) throws Exception {
    HttpResponse<byte[]> issued =
        send(
            HttpRequest.newBuilder(URI.create(base + TOKEN_ENDPOINT))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Cookie", cookie)
                .build());
    assertEquals(201, issued.statusCode(), () -> name + ": token endpoint: " + text(issued));
    Matcher json = TOKEN_JSON.matcher(new String(issued.body(), StandardCharsets.UTF_8));
    assertTrue(json.matches(), () -> name + ": " + text(issued));
    assertEquals(json.group(1), header(issued, "Idempotency-Key"));
    assertEquals(String.valueOf(TOKEN_TTL.toSeconds()), json.group(2));
    return json.group(1);
  }

  private HttpRequest checkout(String body, String cookie, String... more) {
    return IdempotencyOverHttp.post(
        base + "/orders/checkout", null, body, concat("Cookie", cookie, more));
  }

  private HttpRequest pay(String token, String body, String cookie, String... more) {
    return IdempotencyOverHttp.post(
        base + "/orders/pay", token, body, concat("Cookie", cookie, more));
  }

  private static String[] concat(String name, String value, String... more) {
    String[] all = new String[more.length + 2];
    all[0] = name;
    all[1] = value;
    System.arraycopy(more, 0, all, 2, more.length);
    return all;
  }

  /** A token of the right form that this service never issued. */
  private static String forged() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  private void assertProblem(HttpResponse<byte[]> response, int status, String slug) {
    assertEquals(status, response.statusCode(), () -> name + ": " + text(response));
    assertTrue(isProblem(response), () -> name + ": " + response.headers().map());
    assertTrue(
        text(response).contains("urn:hotkey:problem:idempotency:" + slug),
        () -> name + ": " + text(response));
  }
}
