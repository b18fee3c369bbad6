package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Write-hot keys (a key written at the threshold's rate is reported with the advice to split it,
 * and never served) and redaction ({@code hotkey.report.redact=hash}: no raw key in any output), in
 * a real JVM reading and writing a real Redis.
 */
class WriteHotAndRedactionIT extends RedisTestBase {
  private static final String COUNTER = "counter:7";

  /** A key that carries personal data: only {@code user:} may ever be shown of it. */
  private static final String PERSONAL = "user:4711-jane.doe@example.com";

  @Test
  void aKeyWrittenAtTheThresholdIsReportedWriteHotAndNeverServed() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.detect.write-threshold", "200")
                .name("write-hot"))) {
      app.write(COUNTER, 400);
      app.load(COUNTER, 200);
      assertTrue(
          app.jvm()
              .awaitAgentLine(
                  "^\\[hotkey\\] write-hot key: key=\"counter:7\" writes=\\d+/s; consider splitting"
                      + " it \\(N sub-keys, writes routed by hash, reads summed\\)$",
                  Duration.ofSeconds(30)),
          app.jvm()::output);
      JsonObject report =
          app.awaitReport(
              r -> hotKey(r, COUNTER) != null && hotKey(r, COUNTER).get("writeHot").getAsBoolean(),
              Duration.ofSeconds(5));
      assertNotNull(hotKey(report, COUNTER), () -> "not hot: " + report.get("hotKeys"));
      assertTrue(hotKey(report, COUNTER).get("writeHot").getAsBoolean(), report::toString);
      PrometheusText metrics =
          PrometheusText.parse(LiveService.get(app.endpoint() + "metrics").body());
      assertEquals(1.0, metrics.value("hotkey_write_hotkeys"), "write-hot gauge");
      StatusCommandIT.Command status =
          StatusCommandIT.agentCommand("status", String.valueOf(app.jvm().pid()));
      assertTrue(
          Pattern.compile("(?m)^counter:7 .* local +yes ").matcher(status.out).find(),
          status::toString);
      assertTrue(status.out.contains("consider splitting it"), status::toString);

      // reads may have been served before its writes alone reached the threshold, never after:
      // they all go to Redis, as misses of the key
      long hits = cacheHits(app);
      JsonObject before = hotKey(app.report(), COUNTER);
      Thread.sleep(2000);
      assertEquals(hits, cacheHits(app), "a write-hot key was served locally");
      JsonObject after = hotKey(app.report(), COUNTER);
      assertEquals(before.get("hits").getAsLong(), after.get("hits").getAsLong(), after::toString);
      assertTrue(
          after.get("misses").getAsLong() > before.get("misses").getAsLong() + 100,
          () -> "reads of the write-hot key not counted as misses: " + before + " then " + after);
      long promotions = countOf(app.jvm().output(), "write-hot key: key=\"counter:7\"");
      assertEquals(1, promotions, "one write-hot line per promotion");

      // the same JVM serves a key hot by its reads: zero hits above was not a cache that is off
      app.load(HOT, 600);
      JsonObject served =
          app.awaitReport(
              r -> r.getAsJsonObject("cache").get("hits").getAsLong() > 100,
              Duration.ofSeconds(30));
      assertTrue(served.getAsJsonObject("cache").get("hits").getAsLong() > 100, served::toString);
      assertFalse(hotKey(served, HOT).get("writeHot").getAsBoolean(), served::toString);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void redactionLeavesNoRawKeyInLogsMetricsEndpointOrStatus() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.report.redact", "hash")
                .prop("hotkey.report.redact-prefix", "5")
                .prop("hotkey.report.interval", "1s")
                .name("redacted"))) {
      app.load(PERSONAL, 600);
      JsonObject report =
          app.awaitReport(
              r ->
                  r.getAsJsonArray("hotKeys").size() > 0
                      && servedFromTheCache(r.getAsJsonArray("hotKeys").get(0).getAsJsonObject()),
              Duration.ofSeconds(30));
      String shown =
          report.getAsJsonArray("hotKeys").get(0).getAsJsonObject().get("key").getAsString();
      assertTrue(shown.matches("user:#[0-9a-f]{12}"), () -> "redacted key: " + shown);
      assertTrue(
          hotKey(report, shown).get("hits").getAsLong() > 0,
          () -> "the redacted key's reads are not counted: " + report.get("hotKeys"));
      assertTrue(
          app.jvm()
              .awaitAgentLine(
                  "^\\[hotkey\\] top keys: \"" + Pattern.quote(shown) + "\"",
                  Duration.ofSeconds(10)),
          app.jvm()::output);

      String metrics = LiveService.get(app.endpoint() + "metrics").body();
      String api = LiveService.get(app.endpoint() + "api/hotkeys").body();
      String history = LiveService.get(app.endpoint() + "api/history").body();
      StatusCommandIT.Command status =
          StatusCommandIT.agentCommand("status", String.valueOf(app.jvm().pid()));
      StatusCommandIT.Command json =
          StatusCommandIT.agentCommand("status", String.valueOf(app.jvm().pid()), "--json");
      String stderr = app.jvm().output();
      assertTrue(metrics.contains("hotkey_key_rate{key=\"" + shown + "\"}"), metrics);
      assertTrue(stderr.contains("hot key promoted: key=\"" + shown + "\""), stderr);
      assertTrue(status.out.contains(shown), status::toString);
      for (String output :
          new String[] {stderr, metrics, api, history, status.out, status.err, json.out}) {
        // the kept prefix and what follows it, not the digits alone: a timestamp may hold them
        assertFalse(output.contains("user:4711"), () -> "raw key in:\n" + output);
        assertFalse(output.contains("jane"), () -> "raw key in:\n" + output);
      }
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  private static long cacheHits(LiveService app) throws Exception {
    return app.report().getAsJsonObject("cache").get("hits").getAsLong();
  }

  private static long countOf(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    long n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /** Whether the key was served locally; its hits are null until its read counts are published. */
  private static boolean servedFromTheCache(JsonObject hotKey) {
    JsonElement hits = hotKey.get("hits");
    return hits != null && !hits.isJsonNull() && hits.getAsLong() > 0;
  }
}
