package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.hotkey.it.app.results.LiveLoadResults;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The built-in endpoint ({@code hotkey.http.port}) of an agent in a real JVM reading a real Redis:
 * Prometheus text that moves under load, the hot keys as JSON, never an application route for the
 * agent's own idempotency filter, and a port already taken or an application that ends changes
 * nothing for the application.
 */
class LiveEndpointIT extends RedisTestBase {
  /** A key Prometheus and the logs must escape: a quote and a backslash. */
  private static final String QUOTED_KEY = "quote\"back\\slash";

  /** Excluded from the cache: hot, but never served. */
  private static final String NEVER_CACHED = "never-cached:1";

  private static final List<String> OUTCOMES =
      List.of(
          "executed",
          "replayed",
          "conflict",
          "mismatch",
          "missing_key",
          "invalid_key",
          "store_failure",
          "passed_through",
          "body_too_large",
          "stored",
          "released",
          "not_stored",
          "fenced_out");

  @Test
  void metricsAreValidPrometheusTextWithEveryMeterAndCountersMovingUnderLoad() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.idempotency.routes", "POST /orders")
                .name("live-metrics"))) {
      app.load(HOT, 600);
      app.load(QUOTED_KEY, 400);
      app.awaitHot(HOT, 300);
      app.awaitHot("quote\\\"back\\\\slash", 200);
      HttpResponse<String> first = LiveService.get(app.endpoint() + "metrics");
      Thread.sleep(2000);
      HttpResponse<String> second = LiveService.get(app.endpoint() + "metrics");
      assertEquals(200, second.statusCode());
      assertEquals(
          "text/plain; version=0.0.4; charset=utf-8",
          second.headers().firstValue("Content-Type").orElse(""));
      PrometheusText before = PrometheusText.parse(first.body());
      PrometheusText after = PrometheusText.parse(second.body());
      String[] everyMeter = {
        "hotkey_commands_total{kind=\"read\"}",
        "hotkey_commands_total{kind=\"write\"}",
        "hotkey_hotkeys",
        "hotkey_write_hotkeys",
        "hotkey_cache_hits_total",
        "hotkey_cache_misses_total",
        "hotkey_cache_evictions_total",
        "hotkey_cache_bytes",
        "hotkey_cache_entries",
        "hotkey_agent_errors_total",
        "hotkey_key_rate{key=\"" + HOT + "\"}"
      };
      for (String series : everyMeter) {
        assertNotNull(after.value(series), () -> series + " missing from\n" + second.body());
      }
      for (String outcome : OUTCOMES) {
        String series = "hotkey_idempotency_requests_total{outcome=\"" + outcome + "\"}";
        assertNotNull(after.value(series), () -> series + " missing from\n" + second.body());
      }
      assertTrue(
          after.value("hotkey_cache_hits_total") > before.value("hotkey_cache_hits_total") + 500,
          () ->
              "cache hits did not move: "
                  + before.value("hotkey_cache_hits_total")
                  + " then "
                  + after.value("hotkey_cache_hits_total"));
      assertTrue(
          after.value("hotkey_commands_total{kind=\"read\"}")
              > before.value("hotkey_commands_total{kind=\"read\"}") + 500,
          "read commands did not move");
      assertTrue(after.value("hotkey_hotkeys") >= 2, "hot keys gauge");
      assertTrue(after.value("hotkey_key_rate{key=\"" + HOT + "\"}") > 300, "rate of " + HOT);
      assertEquals(0.0, after.value("hotkey_agent_errors_total"), "agent errors");
      List<String> keys =
          after.labelsOf("hotkey_key_rate").stream()
              .map(labels -> labels.get("key"))
              .collect(Collectors.toList());
      // the tag is the key as the logs print it (quote and backslash escaped), escaped again by
      // the exposition format, and reads back exactly
      assertTrue(keys.contains("quote\\\"back\\\\slash"), () -> "rate series keys: " + keys);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void apiHotkeysShowsAKeyPromotedByLoadWithItsRateAndTheAgentsFigures() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.cache.exclude", "never-cached:*")
                .name("live-api"))) {
      app.load(HOT, 600);
      app.load("cold:1", 20);
      app.load(NEVER_CACHED, 400);
      JsonObject report =
          app.awaitReport(
              r ->
                  hotKey(r, HOT) != null
                      && hotKey(r, HOT).get("rate").getAsDouble() > 300
                      && hotKey(r, NEVER_CACHED) != null
                      && !r.getAsJsonObject("redis").get("savedPerSecond").isJsonNull()
                      && r.getAsJsonObject("redis").get("savedPerSecond").getAsDouble() > 300,
              Duration.ofSeconds(30));
      JsonObject hot = hotKey(report, HOT);
      assertNotNull(hot, () -> "not hot: " + report);
      assertEquals("local", hot.get("scope").getAsString());
      assertEquals("local", report.get("scope").getAsString());
      assertTrue(hot.get("rate").getAsDouble() > 300, () -> "rate " + hot);
      assertEquals(1.0, hot.get("readShare").getAsDouble(), 0.01);
      assertTrue(hot.get("promotedAt").getAsLong() > 0, () -> "promotedAt " + hot);
      assertEquals(null, hotKey(report, "cold:1"), "a cold key listed as hot");
      JsonObject cache = report.getAsJsonObject("cache");
      assertTrue(cache.get("hits").getAsLong() > 0, () -> "cache " + cache);
      assertTrue(cache.get("entries").getAsLong() >= 1, () -> "cache " + cache);
      // most reads local; the misses include those until the server acknowledged tracking the key
      assertTrue(cache.get("hitRatio").getAsDouble() > 0.5, () -> "cache " + cache);
      assertTrue(
          report.getAsJsonObject("redis").get("savedPerSecond").getAsDouble() > 300,
          () -> "redis " + report.get("redis"));
      assertEquals("tracking", report.getAsJsonObject("tracking").get("mode").getAsString());
      assertHitsAndMissesOfEachHotKey(report);
      assertEquals(200, report.getAsJsonObject("detector").get("threshold").getAsLong());
      assertFalse(report.getAsJsonObject("idempotency").get("enabled").getAsBoolean());
      Map<String, JsonObject> config =
          LiveService.configEntries(report).asList().stream()
              .map(JsonElement::getAsJsonObject)
              .collect(Collectors.toMap(e -> e.get("key").getAsString(), e -> e));
      assertEquals("0", config.get("hotkey.http.port").get("value").getAsString());
      assertEquals("system property", config.get("hotkey.http.port").get("source").getAsString());
      JsonObject history =
          com.google.gson.JsonParser.parseString(
                  LiveService.get(app.endpoint() + "api/history").body())
              .getAsJsonObject();
      assertTrue(
          history.getAsJsonArray("points").asList().stream()
              .anyMatch(p -> p.toString().contains("\"key\":\"" + HOT + "\"")),
          () -> "no history point of " + HOT + ": " + history);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void apiHotkeysCountsEachHotKeysHitsAndMissesOnLettuce() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.lettuceApp(redis)
                .prop("hotkey.cache.exclude", "never-cached:*")
                .name("live-api-lettuce"))) {
      app.load(HOT, 600);
      app.load(NEVER_CACHED, 400);
      JsonObject report =
          app.awaitReport(
              r ->
                  hotKey(r, HOT) != null
                      && hotKey(r, NEVER_CACHED) != null
                      && hotKey(r, HOT).get("hits").getAsLong() > 300,
              Duration.ofSeconds(30));
      assertHitsAndMissesOfEachHotKey(report);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  /**
   * {@link LiveService#HOT}, read under load and served, counts its local answers as hits and at
   * least its first fill as a miss; {@link #NEVER_CACHED}, hot but excluded, is never a hit. Only
   * {@code HOT} is served, so its hits are the cache's, read a moment earlier in the same report.
   */
  private static void assertHitsAndMissesOfEachHotKey(JsonObject report) {
    JsonObject hot = hotKey(report, HOT);
    assertNotNull(hot, () -> "not hot: " + report);
    long hits = hot.get("hits").getAsLong();
    long misses = hot.get("misses").getAsLong();
    assertTrue(hits > 0, () -> "hits " + hot);
    assertTrue(misses >= 1, () -> "the first fill is a miss: " + hot);
    // the report writes ratios to three decimals
    assertEquals((double) hits / (hits + misses), hot.get("hitRatio").getAsDouble(), 0.0005 + 1e-9);
    long cacheHits = report.getAsJsonObject("cache").get("hits").getAsLong();
    assertTrue(
        hits <= cacheHits && cacheHits - hits < 50,
        () -> "hits " + hits + " of " + HOT + ", " + cacheHits + " of the cache");
    JsonObject excluded = hotKey(report, NEVER_CACHED);
    assertNotNull(excluded, () -> "not hot: " + report);
    assertEquals(
        0, excluded.get("hits").getAsLong(), () -> "an excluded key was served: " + excluded);
    assertTrue(excluded.get("misses").getAsLong() > 0, () -> "reads not counted: " + excluded);
    assertEquals(0.0, excluded.get("hitRatio").getAsDouble(), () -> "ratio " + excluded);
  }

  @Test
  void theEndpointIsReadOnlyAndServesNothingElse() throws Exception {
    try (LiveService app = LiveService.start(LiveService.app(redis).name("live-methods"))) {
      HttpResponse<String> post =
          LiveService.send(
              HttpRequest.newBuilder(URI.create(app.endpoint() + "api/hotkeys"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}")));
      assertEquals(405, post.statusCode());
      assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
      assertEquals(404, LiveService.get(app.endpoint() + "etc/passwd").statusCode());
      assertEquals(404, LiveService.get(app.endpoint() + "../pom.xml").statusCode());
      HttpResponse<String> page = LiveService.get(app.endpoint());
      assertEquals(200, page.statusCode());
      for (String file : List.of("", "live.css")) {
        String body = LiveService.get(app.endpoint() + file).body();
        assertFalse(
            body.contains("http:") || body.contains("https:") || body.contains("//cdn"),
            () -> "the page refers to something outside the endpoint:\n" + body);
      }
      assertTrue(
          page.headers()
              .firstValue("Content-Security-Policy")
              .orElse("")
              .contains("default-src 'none'"),
          () -> "policy " + page.headers().map());
    }
  }

  @Test
  void theAgentsIdempotencyFilterNeverStandsInFrontOfItsOwnEndpoint() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.idempotency.routes", "GET /**")
                .name("live-idempotency"))) {
      HttpRequest.Builder keyed =
          HttpRequest.newBuilder(URI.create(app.endpoint() + "api/hotkeys"))
              .header("Idempotency-Key", "\"same-key\"")
              .GET();
      HttpResponse<String> first = LiveService.send(keyed);
      Thread.sleep(20);
      HttpResponse<String> second = LiveService.send(keyed);
      assertEquals(200, second.statusCode());
      assertFalse(
          second.headers().firstValue("Idempotent-Replayed").isPresent(),
          "the agent's endpoint answered from the idempotency store");
      assertFalse(first.body().equals(second.body()), "the second answer is the first one");
      // the filter is active for the application's own server in the same JVM
      HttpRequest.Builder application =
          HttpRequest.newBuilder(URI.create(app.jvm().base() + "/stats"))
              .header("Idempotency-Key", "\"same-key\"")
              .GET();
      LiveService.send(application);
      HttpResponse<String> replayed = LiveService.send(application);
      assertEquals("true", replayed.headers().firstValue("Idempotent-Replayed").orElse(""));
      JsonObject outcomes = app.report().getAsJsonObject("idempotency").getAsJsonObject("outcomes");
      assertEquals(1, outcomes.get("executed").getAsLong(), () -> "outcomes " + outcomes);
      assertEquals(1, outcomes.get("replayed").getAsLong(), () -> "outcomes " + outcomes);
      assertEquals(0, outcomes.get("passed_through").getAsLong(), () -> "outcomes " + outcomes);
    }
  }

  @Test
  void aPortAlreadyTakenCostsOneLogLineAndTheApplicationRunsOn() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      try (LiveService app =
          LiveService.startWithoutEndpoint(
              LiveService.app(redis)
                  .prop("hotkey.http.port", String.valueOf(port))
                  .name("live-port-taken"))) {
        app.load(HOT, 600);
        assertTrue(
            app.jvm()
                .awaitAgentLine("hot key promoted: key=\"" + HOT + "\"", Duration.ofSeconds(30)),
            () -> "never promoted:\n" + app.jvm().output());
        Thread.sleep(1000);
        List<String> endpointLines =
            app.jvm().snapshot().hotkeyLines().stream()
                .filter(l -> l.contains("http endpoint"))
                .collect(Collectors.toList());
        assertEquals(1, endpointLines.size(), () -> "endpoint lines " + endpointLines);
        assertTrue(
            endpointLines.get(0).contains("127.0.0.1:" + port + " is already in use"),
            () -> "line " + endpointLines);
        assertEquals(0, app.wrongReads(), "wrong values read");
        assertTrue(app.jvm().isAlive(), "the application died");
        assertFalse(app.jvm().snapshot().stderrContains("Exception"), "an exception was printed");
      }
    }
  }

  @Test
  void aSecondAgentStartByAttachStartsNoSecondEndpoint() throws Exception {
    try (LiveService app = LiveService.start(LiveService.app(redis).name("live-attach-twice"))) {
      Process attach =
          new ProcessBuilder(
                  Jdk.JDK17.java().toString(),
                  "-jar",
                  ItConfig.agentJar().toString(),
                  "attach",
                  String.valueOf(app.jvm().pid()))
              .redirectErrorStream(true)
              .start();
      String said = new String(attach.getInputStream().readAllBytes(), UTF_8);
      assertEquals(0, attach.waitFor(), () -> "attach said " + said);
      assertTrue(
          app.jvm().awaitAgentLine("agent already active in this JVM", Duration.ofSeconds(20)),
          () -> "second start not refused:\n" + app.jvm().output());
      long endpoints =
          app.jvm().snapshot().hotkeyLines().stream()
              .filter(l -> l.contains("http endpoint"))
              .count();
      assertEquals(1, endpoints, () -> app.jvm().output());
      assertEquals(200, LiveService.get(app.endpoint() + "api/hotkeys").statusCode());
    }
  }

  /**
   * The endpoint's threads are daemons and Micrometer loads only for a scrape: an application whose
   * main returns ends as without the agent, and one that nobody scrapes never loads Micrometer.
   */
  @Test
  void theEndpointNeverKeepsTheJvmAliveAndLoadsMicrometerOnlyWhenScraped() {
    ChildRun on =
        LiveService.app(redis)
            .prop("hotkey.http.port", "0")
            .jvmOption("-Xlog:class+load=info")
            .args("--exit-after-millis", "3000", "--key", HOT, "--rate", "300")
            .name("live-exits")
            .timeout(Duration.ofSeconds(60))
            .run();
    assertEquals(0, on.exitCode(), on::describe);
    assertTrue(on.stderrContains("http endpoint: http://127.0.0.1:"), on::describe);
    assertTrue(on.result(LiveLoadResults.READS) > 0, on::describe);
    assertEquals(0, on.result(LiveLoadResults.WRONG), on::describe);
    assertTrue(
        on.stdout().stream().anyMatch(l -> l.contains("io.hotkey.agent.http.HttpEndpoint ")),
        "class loading not logged");
    assertFalse(
        on.stdout().stream().anyMatch(l -> l.contains("io.hotkey.shaded.micrometer")),
        "Micrometer loaded though nobody scraped /metrics");

    ChildRun off =
        LiveService.app(redis)
            .jvmOption("-Xlog:class+load=info")
            .args("--exit-after-millis", "1000", "--key", HOT, "--rate", "100")
            .name("live-off")
            .timeout(Duration.ofSeconds(60))
            .run();
    assertEquals(0, off.exitCode(), off::describe);
    assertFalse(
        off.stdout().stream().anyMatch(l -> l.contains("com.sun.net.httpserver.HttpServer ")),
        "the endpoint's server loaded though hotkey.http.port is off");
  }
}
