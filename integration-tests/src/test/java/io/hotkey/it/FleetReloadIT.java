package io.hotkey.it;

import static io.hotkey.it.LiveConfigFile.assertReloaded;
import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet threshold changed in the properties file three running JVMs share, against one real
 * Redis. Each reads a key at 100/s, below the local threshold of 200/s; together they read it at
 * 300/s. Set from 0 (off) to 150/s, fleet detection starts and every instance serves the key
 * locally, so Redis stops answering its GETs; set back to 0, every instance demotes the fleet's hot
 * keys at once, stops exchanging counts with the fleet, and sends every read to Redis again.
 */
class FleetReloadIT extends RedisTestBase {
  private static final int INSTANCES = 3;

  /**
   * Every access counted: sampled 1 in 4 (what {@code auto} picks here), a key read at 100/s by one
   * instance was once counted at 152/s, over the fleet threshold.
   */
  private static final String OFF =
      """
      hotkey.detect.sampling=1
      hotkey.detect.threshold=200
      hotkey.detect.cool-down=1s
      hotkey.report.interval=0
      hotkey.detect.fleet-threshold=0
      """;

  private static final String ON = OFF.replace("fleet-threshold=0", "fleet-threshold=150");

  @TempDir Path dir;

  @Test
  void aFleetThresholdSetLiveServesAKeyHotOnlyAcrossTheFleetAndZeroStopsThat() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, OFF);
    List<LiveService> fleet = new ArrayList<>();
    try {
      for (int n = 0; n < INSTANCES; n++) {
        fleet.add(
            LiveService.start(
                file.liveLoadApp("reload-fleet-" + n, redis)
                    .prop("hotkey.redis.uri", "redis://" + redis.address())));
      }
      for (LiveService app : fleet) {
        app.load(HOT, 100);
      }
      ReadSpan off = ReadSpan.untilGets(redis, fleet, 900);
      assertEquals(0, off.hits, () -> "served locally with fleet detection off: " + off);
      assertEquals(0, fleetExchanges(off), () -> "fleet exchanges while off: " + off);

      file.save(ON);
      for (LiveService app : fleet) {
        assertReloaded(app.jvm(), "hotkey.detect.fleet-threshold: 0 -> 150");
      }
      for (LiveService app : fleet) {
        JsonObject report =
            app.awaitReport(
                r -> fleetKey(r, HOT) != null && fleetKey(r, HOT).get("hits").getAsLong() > 0,
                Duration.ofSeconds(20));
        assertNotNull(fleetKey(report, HOT), () -> "not fleet-hot: " + report.get("fleetHotKeys"));
        assertTrue(
            fleetKey(report, HOT).get("hits").getAsLong() > 0,
            () -> "fleet-hot but not served: " + report.get("fleetHotKeys"));
        assertNull(hotKey(report, HOT), () -> "hot on one instance alone: " + report);
      }
      ReadSpan on = ReadSpan.untilHits(redis, fleet, 1_500);
      // one fill per instance, and one more per TTL of 5 s
      assertTrue(on.gets() <= on.hits / 10, () -> "reads still reaching Redis: " + on);
      assertTrue(fleetExchanges(on) > 0, () -> "no fleet exchange: " + on);

      file.save(OFF);
      for (LiveService app : fleet) {
        assertReloaded(app.jvm(), "hotkey.detect.fleet-threshold: 150 -> 0");
        // demoted before the reload line was written
        JsonObject report = app.report();
        assertEquals(
            0, report.getAsJsonArray("fleetHotKeys").size(), () -> "still fleet-hot: " + report);
        assertTrue(
            app.jvm().snapshot().stderrContains("fleet hot key demoted: key=\"" + HOT + "\""),
            app.jvm()::output);
      }
      ReadSpan offAgain = ReadSpan.untilGets(redis, fleet, 900);
      assertEquals(0, offAgain.hits, () -> "served locally once turned off: " + offAgain);
      // an exchange under way when the threshold went to 0 may still finish
      assertTrue(
          fleetExchanges(offAgain) <= INSTANCES,
          () -> "fleet exchanges once turned off: " + offAgain);
      for (LiveService app : fleet) {
        JsonObject report = app.report();
        assertEquals(
            0, report.getAsJsonArray("fleetHotKeys").size(), () -> "fleet-hot again: " + report);
        assertEquals(0, app.wrongReads(), "wrong values read");
      }
    } finally {
      fleet.forEach(LiveService::close);
    }
  }

  @Test
  void aFleetThresholdSetLiveWithNoRedisNamedCountsInTheApplicationsOwnRedis() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, OFF);
    try (LiveService app = LiveService.start(file.liveLoadApp("reload-fleet-no-uri", redis))) {
      app.load(HOT, 100);
      file.save(ON);
      assertTrue(
          app.jvm()
              .awaitAgentLine(
                  Pattern.quote("fleet counts go to the server " + redis.address() + ","),
                  Duration.ofSeconds(10)),
          app.jvm()::output);
      ReadSpan on = ReadSpan.untilGets(redis, List.of(app), 300);
      assertTrue(fleetExchanges(on) > 0, () -> "no fleet exchange in its own Redis: " + on);
      assertEquals(0, on.hits, () -> "100/s on one instance is not 150/s: " + on);
    }
  }

  /** The exchanges' script calls over a stretch, first run or cached. */
  private static long fleetExchanges(ReadSpan span) {
    return span.commands.calls("evalsha") + span.commands.calls("eval");
  }

  /** The fleet-hot key named {@code key} in a report; null when it is not fleet-hot. */
  private static JsonObject fleetKey(JsonObject report, String key) {
    JsonArray keys = report.getAsJsonArray("fleetHotKeys");
    for (JsonElement element : keys) {
      if (element.getAsJsonObject().get("key").getAsString().equals(key)) {
        return element.getAsJsonObject();
      }
    }
    return null;
  }
}
