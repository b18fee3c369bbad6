package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.get;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Idempotency-Key in a real Spring Boot 3 web application with no code change: the Lettuce fat jar
 * of spring-boot-app/ (Tomcat embedded by Boot, Spring MVC's DispatcherServlet behind Boot's filter
 * chain — character encoding, request context, form content, actuator's observation filter — and
 * the application's own audit filter with Spring's content-caching request and response wrappers)
 * runs with {@code -javaagent:} and {@code -Dhotkey.idempotency.routes=POST /orders} (memory
 * store). One start of the application serves every check: the proofs shared with the bare
 * containers and the JDK server ({@link IdempotencyOverHttp}), once on the plain path and once
 * through Spring MVC's async processing, then what only Spring adds, then the agent's {@code
 * hotkey.idempotency.requests} counters in {@code /actuator/prometheus}, which must equal, outcome
 * by outcome, what the requests should have caused ({@link IdempotencyOverHttp#assertCounted}): a
 * nested filter or servlet call treated as a request of its own, or the error dispatch to {@code
 * /error} after the exception, would show up there as extra executions, conflicts or releases.
 */
class SpringBootIdempotencyIT extends RedisTestBase {
  /** One outcome's sample; Boot 2.7's Micrometer writes a comma after the last label. */
  private static final Pattern OUTCOME =
      Pattern.compile("(?m)^hotkey_idempotency_requests_total\\{outcome=\"(\\w+)\",?\\} (\\S+)$");

  /** What the agent runs with here: {@code POST /orders} and the playbook's routes. */
  static Map<String, String> properties() {
    Map<String, String> properties = new TreeMap<>(PlaybookOverHttp.PROPERTIES);
    properties.put("hotkey.idempotency.routes", "POST /orders");
    properties.put("hotkey.report.interval", "0");
    return properties;
  }

  @Test
  void idempotencyKeyInASpringBootApplication() throws Exception {
    try (SpringBootApp app =
        SpringBootApp.start(
            "boot-idempotency",
            SpringBootApp.jar("lettuce"),
            properties(),
            "--spring.data.redis.host=" + redis.host(),
            "--spring.data.redis.port=" + redis.port())) {
      app.awaitReady(Duration.ofSeconds(150));
      proveIdempotency(app, "spring boot");
    }
  }

  /**
   * The checks of the class comment, on the application started with {@link #properties()}, which
   * must not have served a request on those routes yet; {@code label} names it in the report and in
   * failures.
   */
  static void proveIdempotency(SpringBootApp app, String label) throws Exception {
    long started = System.nanoTime();
    IdempotencyOverHttp http =
        new IdempotencyOverHttp(
            label, app.base(), "/orders", IdempotencyOverHttp.Runs.at(app.base() + "/orders/runs"));
    http.proveAll();
    // all of it again through Spring MVC's async path: the handler returns a Callable, Spring
    // starts
    // async processing with its own wrappers, runs it on the task executor and dispatches back
    // (ASYNC)
    http.with("X-Async", "true").proveAll();

    // a buffered response (ContentCachingResponseWrapper, copied out with a Content-Length after
    // the
    // chain) and a UTF-8 body read through the agent's buffer, Boot's encoding filter and the
    // caching
    // request wrapper: stored whole, replayed byte for byte
    int before = http.runs();
    String key = UUID.randomUUID().toString();
    String payload = "{\"sku\":7,\"note\":\"café ✓\"}";
    HttpResponse<byte[]> buffered = send(http.request(key, payload, "X-Buffered", "true"));
    assertEquals(201, buffered.statusCode(), () -> text(buffered));
    assertEquals(
        String.valueOf(buffered.body().length),
        buffered.headers().firstValue("Content-Length").orElse(null));
    String echoed = new String(buffered.body(), StandardCharsets.UTF_8);
    assertTrue(
        echoed.contains("café ✓"), () -> "the payload reached the handler intact: " + echoed);
    HttpResponse<byte[]> replay = send(http.request(key, payload, "X-Buffered", "true"));
    assertTrue(replayed(replay));
    assertArrayEquals(buffered.body(), replay.body());
    assertEquals(before + 1, http.runs());
    http.expect("executed", 1);
    http.expect("stored", 1);
    http.expect("replayed", 1);

    // every run read its body through the application's ContentCachingRequestWrapper, none twice;
    // the filter counts after the chain, which may be after Tomcat sent a response of known length
    int runs = http.runs();
    String audited = get(app.base() + "/orders/audited").trim();
    for (long deadline = System.nanoTime() + 5_000_000_000L;
        Integer.parseInt(audited) < runs && System.nanoTime() - deadline < 0; ) {
      Thread.sleep(20);
      audited = get(app.base() + "/orders/audited").trim();
    }
    assertEquals(String.valueOf(runs), audited, "the audit filter saw each run's body once");

    // the agent's meter, scraped from the application's own Prometheus endpoint
    String prometheus = get(app.base() + "/actuator/prometheus");
    Map<String, Long> counted = outcomes(prometheus);
    System.out.println(
        "[it] "
            + label
            + ": "
            + runs
            + " runs; checks took "
            + (System.nanoTime() - started) / 1_000_000
            + "ms");
    // why each claim was released without an answer, in the report whatever the counts say next
    ChildRun end = app.snapshot();
    List<String> releases =
        end.stderr().stream()
            .filter(l -> l.startsWith("[hotkey] idempotency claim released"))
            .toList();
    releases.forEach(l -> System.out.println("[it] " + label + " agent: " + l));
    assertTrue(
        releases.contains(
            "[hotkey] idempotency claim released without an answer: the handler threw;"
                + " a retry with its key runs the request again"),
        () -> "the exception's release is logged" + end.describe());
    http.assertCounted("/actuator/prometheus hotkey_idempotency_requests_total", counted);
    Map<String, Long> expected = http.expected();
    assertEquals(
        runs,
        expected.get("executed") + expected.get("passed_through"),
        "every run was an execution the agent counted, or a request without a key");
    assertEquals(0.0, SpringBootIT.sample(prometheus, "hotkey_agent_errors_total"), "agent errors");

    // the rest of the playbook, after the checks above that count only /orders: session cookies,
    // the keyless guard and tokens, counted with everything before
    new PlaybookOverHttp(label, app.base(), http).proveAll();
    http.assertCounted(
        "/actuator/prometheus after the playbook",
        outcomes(get(app.base() + "/actuator/prometheus")));

    assertTrue(end.agentActiveLine(), () -> "no [hotkey] active line" + end.describe());
    assertTrue(
        end.stderr().stream().noneMatch(l -> l.contains("[hotkey] internal error")),
        () -> "agent internal errors" + end.describe());
  }

  /** The agent's {@code hotkey_idempotency_requests_total} by outcome, from a Prometheus page. */
  private static Map<String, Long> outcomes(String prometheus) {
    Map<String, Long> counted = new TreeMap<>();
    Matcher m = OUTCOME.matcher(prometheus);
    while (m.find()) {
      counted.put(m.group(1), (long) Double.parseDouble(m.group(2)));
    }
    return counted;
  }
}
