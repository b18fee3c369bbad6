package io.hotkey.it;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.hotkey.it.app.results.LiveLoadResults;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code LiveLoadApp} running with the agent (its endpoint on any free port unless the test says
 * otherwise): sets the rates at which it reads keys, and reads the agent's endpoint.
 */
final class LiveService implements AutoCloseable {
  static final String HOT = "product:42";

  /** A key that is markup: every view must show it as text. */
  static final String MARKUP_KEY = "<img src=x onerror=alert(1)>";

  private static final Pattern ENDPOINT = Pattern.compile("http endpoint: (http://\\S+/) ");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final RunningJvm jvm;
  private final String endpoint;

  private LiveService(RunningJvm jvm, String endpoint) {
    this.jvm = jvm;
    this.endpoint = endpoint;
  }

  /** The app (on Jedis) with the agent at threshold 200/s; {@code configure} adds to it. */
  static AgentJvm app(RedisServer redis) {
    return AgentJvm.app(
            "live-load", Clients.jedisClasspath(Clients.JEDIS_8), "io.hotkey.it.app.LiveLoadApp")
        .hotkeyTestDefaults()
        .args("--redis", redis.address());
  }

  /** The same app reading through one Lettuce connection. */
  static AgentJvm lettuceApp(RedisServer redis) {
    return AgentJvm.app(
            "live-load-lettuce",
            Clients.lettuceClasspath(Clients.LETTUCE_7),
            "io.hotkey.it.app.LiveLoadApp")
        .hotkeyTestDefaults()
        .args("--redis", redis.address(), "--client", "lettuce");
  }

  /** Starts it with the endpoint on a free port and waits for the endpoint's log line. */
  static LiveService start(AgentJvm app) throws InterruptedException {
    RunningJvm jvm = app.prop("hotkey.http.port", "0").start();
    if (!jvm.awaitAgentLine("http endpoint: http://", Duration.ofSeconds(30))) {
      jvm.close();
      throw new AssertionError("no http endpoint line:\n" + jvm.output());
    }
    Matcher m = ENDPOINT.matcher(jvm.output());
    if (!m.find()) {
      jvm.close();
      throw new AssertionError("cannot read the endpoint's address:\n" + jvm.output());
    }
    return new LiveService(jvm, m.group(1));
  }

  /** Starts it without waiting for an endpoint (none configured, or one that cannot start). */
  static LiveService startWithoutEndpoint(AgentJvm app) {
    return new LiveService(app.start(), null);
  }

  RunningJvm jvm() {
    return jvm;
  }

  /** {@code http://127.0.0.1:<port>/} of the agent's endpoint. */
  String endpoint() {
    return endpoint;
  }

  /** Has the app read {@code key} {@code rate} times a second from now on (0 stops). */
  void load(String key, long rate) throws IOException, InterruptedException {
    String query = "key=" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "&rate=" + rate;
    HttpResponse<String> answer = get(jvm.base() + "/load?" + query);
    if (answer.statusCode() != 200) {
      throw new AssertionError("load " + key + ": " + answer.statusCode() + " " + answer.body());
    }
  }

  /** Has the app write {@code key}'s known value {@code rate} times a second (0 stops). */
  void write(String key, long rate) throws IOException, InterruptedException {
    String query = "key=" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "&rate=" + rate;
    HttpResponse<String> answer = get(jvm.base() + "/write?" + query);
    if (answer.statusCode() != 200) {
      throw new AssertionError("write " + key + ": " + answer.statusCode() + " " + answer.body());
    }
  }

  /** The app's own count of reads that returned another value than the one it wrote. */
  long wrongReads() throws IOException, InterruptedException {
    String stats = get(jvm.base() + "/stats").body();
    return new ResultLines(stats.lines().toList(), () -> "/stats: " + stats)
        .get(LiveLoadResults.WRONG);
  }

  JsonObject report() throws IOException, InterruptedException {
    HttpResponse<String> answer = get(endpoint + "api/hotkeys");
    if (answer.statusCode() != 200) {
      throw new AssertionError("api/hotkeys: " + answer.statusCode() + " " + answer.body());
    }
    return JsonParser.parseString(answer.body()).getAsJsonObject();
  }

  /** A figure of the report's {@code cache} member: {@code hits}, {@code evictions}, ... */
  long cacheFigure(String name) throws IOException, InterruptedException {
    return report().getAsJsonObject("cache").get(name).getAsLong();
  }

  /** Waits until more than 200 reads were answered locally; fails if they never are. */
  void awaitHitsMoving() throws IOException, InterruptedException {
    long before = cacheFigure("hits");
    JsonObject report =
        awaitReport(
            r -> r.getAsJsonObject("cache").get("hits").getAsLong() > before + 200,
            Duration.ofSeconds(10));
    if (report.getAsJsonObject("cache").get("hits").getAsLong() <= before + 200) {
      throw new AssertionError("reads not served locally: " + report.get("cache"));
    }
  }

  /** The hot key named {@code key} in a report; null when it is not hot. */
  static JsonObject hotKey(JsonObject report, String key) {
    for (JsonElement element : report.getAsJsonArray("hotKeys")) {
      if (element.getAsJsonObject().get("key").getAsString().equals(key)) {
        return element.getAsJsonObject();
      }
    }
    return null;
  }

  /** Polls {@code /api/hotkeys} until {@code condition} holds; the last report either way. */
  JsonObject awaitReport(Predicate<JsonObject> condition, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonObject report = report();
    while (!condition.test(report) && System.nanoTime() < deadline) {
      Thread.sleep(250);
      report = report();
    }
    return report;
  }

  /** Waits until {@code key} is hot at a rate of at least {@code rate}/s. */
  JsonObject awaitHot(String key, double rate) throws IOException, InterruptedException {
    JsonObject report =
        awaitReport(
            r -> hotKey(r, key) != null && hotKey(r, key).get("rate").getAsDouble() >= rate,
            Duration.ofSeconds(30));
    if (hotKey(report, key) == null) {
      throw new AssertionError(key + " never hot at " + rate + "/s: " + report.get("hotKeys"));
    }
    return report;
  }

  static JsonArray configEntries(JsonObject report) {
    return report.getAsJsonArray("config");
  }

  static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  static HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return HTTP.send(
        request.timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    jvm.close();
  }
}
