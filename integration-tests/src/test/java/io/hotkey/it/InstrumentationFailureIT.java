package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * One class of a client module fails to weave (as another agent could make it fail; here {@code
 * hotkey.debug.fail-weaving}): that module stops serving in that class loader and says so in the
 * log, the metrics, the JSON report, {@code status} and the live page, while it keeps counting, so
 * the hot key is still detected and every read still gets Redis' own answer.
 */
class InstrumentationFailureIT extends RedisTestBase {
  private static final String BROKEN = "io.lettuce.core.protocol.CommandHandler";

  @Test
  void aModuleWithAClassLeftUnwovenCountsButNeverServes() throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.lettuceApp(redis)
                .prop("hotkey.debug.fail-weaving", BROKEN)
                .name("fail-weaving"))) {
      app.load(LiveService.HOT, 600);
      app.awaitHot(LiveService.HOT, 300);
      long getsBefore = redis.calls("get");
      Thread.sleep(1500);
      long gets = redis.calls("get") - getsBefore;

      assertEquals(0, app.cacheFigure("hits"), "a read was answered locally");
      assertTrue(gets > 500, () -> "the hot key's reads did not go to Redis: " + gets + " GETs");
      assertEquals(0, app.wrongReads(), "wrong values read");

      List<String> states =
          StreamSupport.stream(app.report().getAsJsonArray("instrumentation").spliterator(), false)
              .map(JsonElement::getAsString)
              .toList();
      assertTrue(
          states.stream()
              .anyMatch(
                  s ->
                      s.startsWith("lettuce-6+ counting in ")
                          && s.contains(BROKEN + " is not instrumented: ")),
          () -> "report: " + states);
      assertTrue(
          app.jvm().output().contains("lettuce-6+ stops serving in class loader "),
          () -> "no log line:\n" + app.jvm().output());

      PrometheusText metrics =
          PrometheusText.parse(LiveService.get(app.endpoint() + "metrics").body());
      assertEquals(
          1.0,
          metrics.value("hotkey_instrumentation{module=\"lettuce-6+\",state=\"counting\"}"),
          "counting loaders");
      assertEquals(
          0.0,
          metrics.value("hotkey_instrumentation{module=\"lettuce-6+\",state=\"serving\"}"),
          "serving loaders");

      StatusCommandIT.Command status =
          StatusCommandIT.agentCommand("status", String.valueOf(app.jvm().pid()));
      assertTrue(status.out.contains("clients   lettuce-6+ counting in "), () -> status.toString());

      String page = HeadlessChromium.dumpDom(app.endpoint());
      assertTrue(page.contains("clients: lettuce-6+ counting in "), () -> page);
    }
  }
}
