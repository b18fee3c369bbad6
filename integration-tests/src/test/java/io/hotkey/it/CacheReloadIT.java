package io.hotkey.it;

import static io.hotkey.it.LiveConfigFile.START;
import static io.hotkey.it.LiveConfigFile.assertReloaded;
import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload of the near cache's keys in a real JVM reading a real Redis: the include globs, the
 * TTL and the byte bound change what is served within two seconds of the edit, each logged as a
 * diff. What is served is judged by the agent's own hit count and by Redis' count of GETs ({@code
 * INFO commandstats}). The exclude globs are in {@link ConfigReloadIT}.
 */
class CacheReloadIT extends RedisTestBase {
  @TempDir Path dir;

  @Test
  void anIncludeWidenedToAHotKeyHasItServedLocally() throws Exception {
    String ordersOnly = START + "hotkey.cache.include=order:*\n";
    LiveConfigFile file = LiveConfigFile.create(dir, ordersOnly);
    try (LiveService app = start(file, "reload-include")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      ReadSpan notIncluded = ReadSpan.untilGets(redis, List.of(app), 600);
      assertEquals(0, notIncluded.hits, () -> "served locally, not included: " + notIncluded);

      file.save(ordersOnly.replace("include=order:*", "include=product:*"));
      assertReloaded(app.jvm(), "hotkey.cache.include: order:* -> product:*");
      app.awaitHitsMoving();
      ReadSpan included = ReadSpan.untilHits(redis, List.of(app), 2_000);
      // one fill, and one more per TTL of 5 s
      assertTrue(included.fills() <= 5, () -> "reads still reaching Redis: " + included);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void aShorterTtlRefillsTheKeyFromRedisOftenAndALongerOneStopsThat() throws Exception {
    String longTtl = START + "hotkey.cache.ttl=30s\n";
    LiveConfigFile file = LiveConfigFile.create(dir, longTtl);
    try (LiveService app = start(file, "reload-ttl")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      app.awaitHitsMoving();
      ReadSpan kept = ReadSpan.untilHits(redis, List.of(app), 2_000);
      assertTrue(kept.fills() <= 5, () -> "refilled within a 30 s TTL: " + kept);

      file.save(longTtl.replace("ttl=30s", "ttl=100ms"));
      assertReloaded(app.jvm(), "hotkey.cache.ttl: 30s -> 100ms");
      ReadSpan refilled = ReadSpan.untilHits(redis, List.of(app), 2_000);
      // a fill every 100 ms: about 30 while 2,000 reads are served at 600/s
      assertTrue(refilled.gets() >= 10, () -> "not refilled at a 100 ms TTL: " + refilled);
      assertEquals(
          100, app.report().getAsJsonObject("tracking").get("ttlMillis").getAsLong(), "ttlMillis");

      file.save(longTtl);
      assertReloaded(app.jvm(), "hotkey.cache.ttl: 100ms -> 30s");
      ReadSpan keptAgain = ReadSpan.untilHits(redis, List.of(app), 2_000);
      assertTrue(keptAgain.fills() <= 5, () -> "refilled within a 30 s TTL again: " + keptAgain);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void aLowerByteBoundEvictsAndARaisedOneHoldsEveryHotKeyAgain() throws Exception {
    // an entry here weighs about 250 bytes: two of the four fit in 512 bytes
    String roomy =
        START.replace("threshold=200", "threshold=100")
            + "hotkey.cache.max-entry-bytes=512B\nhotkey.cache.max-bytes=64MB\n";
    List<String> keys = List.of("product:1", "product:2", "product:3", "product:4");
    LiveConfigFile file = LiveConfigFile.create(dir, roomy);
    try (LiveService app = start(file, "reload-max-bytes")) {
      for (String key : keys) {
        app.load(key, 200);
      }
      JsonObject allHeld = awaitAllHeld(app, keys);
      long evictions = cache(allHeld).get("evictions").getAsLong();

      file.save(roomy.replace("max-bytes=64MB", "max-bytes=512B"));
      assertReloaded(app.jvm(), "hotkey.cache.max-bytes: 64MB -> 512B");
      JsonObject bounded =
          app.awaitReport(
              r ->
                  cache(r).get("bytes").getAsLong() <= 512
                      && cache(r).get("evictions").getAsLong() >= evictions + 50,
              Duration.ofSeconds(15));
      assertTrue(
          cache(bounded).get("bytes").getAsLong() <= 512
              && cache(bounded).get("evictions").getAsLong() >= evictions + 50,
          () -> "not bounded at 512 bytes: " + cache(bounded));
      assertEquals(512, cache(bounded).get("maxBytes").getAsLong(), "maxBytes");

      file.save(roomy);
      assertReloaded(app.jvm(), "hotkey.cache.max-bytes: 512B -> 64MB");
      JsonObject heldAgain = awaitAllHeld(app, keys);
      long evictionsAfter = cache(heldAgain).get("evictions").getAsLong();
      ReadSpan roomyAgain = ReadSpan.untilHits(redis, List.of(app), 2_000);
      assertEquals(
          evictionsAfter,
          app.cacheFigure("evictions"),
          () -> "evicted with 64 MB for four keys, over " + roomyAgain);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  /** Waits until every key is hot and has its entry. */
  private static JsonObject awaitAllHeld(LiveService app, List<String> keys) throws Exception {
    JsonObject report =
        app.awaitReport(
            r ->
                keys.stream().allMatch(k -> hotKey(r, k) != null)
                    && cache(r).get("entries").getAsLong() == keys.size(),
            Duration.ofSeconds(30));
    assertEquals(
        keys.size(),
        cache(report).get("entries").getAsLong(),
        () -> "not all held: " + report.get("hotKeys") + " " + cache(report));
    return report;
  }

  private static JsonObject cache(JsonObject report) {
    return report.getAsJsonObject("cache");
  }

  private LiveService start(LiveConfigFile file, String name) throws InterruptedException {
    return LiveService.start(file.liveLoadApp(name, redis));
  }
}
