package io.hotkey.it;

import static io.hotkey.it.LiveConfigFile.START;
import static io.hotkey.it.LiveConfigFile.assertLine;
import static io.hotkey.it.LiveConfigFile.assertReloaded;
import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload of the properties file named by {@code hotkey.config}, in a real JVM reading a real
 * Redis: an edit applies within two seconds without a restart and is logged as a diff, an invalid
 * edit is refused and the running configuration keeps working, a key that cannot change live is
 * named with the advice to restart. The detector's keys (threshold, top-k, cool-down,
 * write-threshold) and the top-keys report's interval here; the cache's in {@link CacheReloadIT},
 * the fleet threshold in {@link FleetReloadIT}, the idempotency keys in {@link
 * IdempotencyReloadIT}.
 */
@SideLane
class ConfigReloadIT extends RedisTestBase {
  private static final String SECOND = "product:43";
  private static final Pattern TOP_KEYS_LINE =
      Pattern.compile("^\\[hotkey\\] top keys: \"" + Pattern.quote(HOT) + "\" \\d+/s ");

  @TempDir Path dir;

  @Test
  void raisingTheThresholdDemotesTheKey() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, START);
    try (LiveService app = start(file, "reload-threshold")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      file.save(START.replace("threshold=200", "threshold=5000"));
      assertLine(app.jvm(), "configuration reloaded: hotkey.detect.threshold: 200 -> 5000");
      JsonObject report = app.awaitReport(r -> hotKey(r, HOT) == null, Duration.ofSeconds(10));
      assertNull(hotKey(report, HOT), () -> "still hot: " + report.get("hotKeys"));
      assertEquals(5000, report.getAsJsonObject("detector").get("threshold").getAsLong());
      assertTrue(
          app.jvm().output().contains("hot key demoted: key=\"" + HOT + "\""), app.jvm()::output);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void anExcludeAddedToTheFileSendsEveryReadOfTheKeyBackToRedis() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, START);
    try (LiveService app = start(file, "reload-exclude")) {
      app.load(HOT, 500);
      app.awaitHot(HOT, 300);
      app.awaitHitsMoving();
      file.save(START + "hotkey.cache.exclude=product:*\n");
      assertLine(app.jvm(), "configuration reloaded: hotkey.cache.exclude: \"\" -> product:*");
      long hits = app.cacheFigure("hits");
      long gets = redis.stats().calls("get");
      Thread.sleep(2000);
      long servedSince = app.cacheFigure("hits") - hits;
      long redisGets = redis.stats().calls("get") - gets;
      assertEquals(0, servedSince, "reads served locally after the exclude");
      assertTrue(redisGets >= 600, () -> "Redis saw only " + redisGets + " GETs in 2 s");
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void anInvalidEditIsRefusedAndTheRunningConfigurationKeepsWorking() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, START);
    try (LiveService app = start(file, "reload-invalid")) {
      app.load(HOT, 500);
      app.awaitHot(HOT, 300);
      file.save(
          START.replace("threshold=200", "threshold=lots") + "hotkey.cache.exclude=product:*\n");
      assertLine(app.jvm(), "configuration reload refused, running configuration kept:");
      String error = "    hotkey.detect.threshold: \"lots\" (from file " + file.path() + ") is not";
      long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (!app.jvm().output().contains(error) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(app.jvm().output().contains(error), app.jvm()::output);
      // the exclude of the refused file is not applied: the key is still served
      app.awaitHitsMoving();
      JsonObject report = app.report();
      assertEquals(200, report.getAsJsonObject("detector").get("threshold").getAsLong());

      file.save(START.replace("threshold=200", "threshold=150") + "hotkey.detect.window=2s\n");
      assertLine(app.jvm(), "configuration reloaded: hotkey.detect.threshold: 200 -> 150");
      assertLine(
          app.jvm(),
          "warning: configuration change not applied while the JVM runs: hotkey.detect.window: 1s"
              + " -> 2s (fixed at start); restart the JVM to apply it");
      assertEquals(150, app.report().getAsJsonObject("detector").get("threshold").getAsLong());
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void aTopKRaisedPromotesTheNextKeyAndLoweredAgainDemotesTheColder() throws Exception {
    String topOne = START + "hotkey.detect.top-k=1\n";
    LiveConfigFile file = LiveConfigFile.create(dir, topOne);
    try (LiveService app = start(file, "reload-top-k")) {
      app.load(HOT, 800);
      app.load(SECOND, 500);
      // with one place, the hotter key takes it, even from the other if that one came first
      JsonObject alone =
          app.awaitReport(
              r -> hotKey(r, HOT) != null && hotKey(r, SECOND) == null, Duration.ofSeconds(30));
      assertNotNull(hotKey(alone, HOT), () -> "not hot alone: " + alone.get("hotKeys"));
      assertNull(hotKey(alone, SECOND), () -> "both hot at top-k 1: " + alone.get("hotKeys"));
      JsonObject capped = app.awaitReport(r -> hotKey(r, SECOND) != null, Duration.ofSeconds(3));
      assertNull(hotKey(capped, SECOND), () -> "both hot at top-k 1: " + capped.get("hotKeys"));

      file.save(topOne.replace("top-k=1", "top-k=2"));
      assertReloaded(app.jvm(), "hotkey.detect.top-k: 1 -> 2");
      JsonObject both =
          app.awaitReport(
              r -> hotKey(r, HOT) != null && hotKey(r, SECOND) != null, Duration.ofSeconds(10));
      assertNotNull(hotKey(both, SECOND), () -> "not promoted at top-k 2: " + both.get("hotKeys"));
      assertNotNull(hotKey(both, HOT), () -> "demoted at top-k 2: " + both.get("hotKeys"));
      assertEquals(2, both.getAsJsonObject("detector").get("topK").getAsInt());

      file.save(topOne);
      assertReloaded(app.jvm(), "hotkey.detect.top-k: 2 -> 1");
      JsonObject lowered = app.awaitReport(r -> hotKey(r, SECOND) == null, Duration.ofSeconds(10));
      assertNull(hotKey(lowered, SECOND), () -> "still hot at top-k 1: " + lowered.get("hotKeys"));
      assertNotNull(hotKey(lowered, HOT), () -> "the hotter key went: " + lowered.get("hotKeys"));
      assertTrue(
          app.jvm()
              .awaitAgentLine(
                  Pattern.quote("hot key demoted: key=\"" + SECOND + "\""), Duration.ofSeconds(2)),
          app.jvm()::output);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void aLongerCoolDownKeepsAKeyNoLongerReadHotAndAShorterOneDemotesIt() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, START);
    try (LiveService app = start(file, "reload-cool-down")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      file.save(START.replace("cool-down=1s", "cool-down=60s"));
      assertReloaded(app.jvm(), "hotkey.detect.cool-down: 1s -> 60s");
      app.load(HOT, 0);
      // at 1 s the key would be demoted about two seconds after its last read
      long until = System.nanoTime() + Duration.ofSeconds(6).toNanos();
      while (System.nanoTime() < until) {
        JsonObject report = app.report();
        assertNotNull(
            hotKey(report, HOT), () -> "demoted within a 60 s cool-down: " + report.get("hotKeys"));
        Thread.sleep(250);
      }

      file.save(START);
      assertReloaded(app.jvm(), "hotkey.detect.cool-down: 60s -> 1s");
      JsonObject report = app.awaitReport(r -> hotKey(r, HOT) == null, Duration.ofSeconds(10));
      assertNull(hotKey(report, HOT), () -> "still hot at a 1 s cool-down: " + report);
      assertTrue(
          app.jvm().output().contains("hot key demoted: key=\"" + HOT + "\""), app.jvm()::output);
    }
  }

  @Test
  void aWriteThresholdLoweredBelowAHotKeysWritesMakesItWriteHotAndNoLongerServed()
      throws Exception {
    String writesAllowed = START + "hotkey.detect.write-threshold=100000\n";
    LiveConfigFile file = LiveConfigFile.create(dir, writesAllowed);
    try (LiveService app = start(file, "reload-write-threshold")) {
      app.load(HOT, 600);
      app.write(HOT, 50);
      app.awaitHot(HOT, 300);
      app.awaitHitsMoving();

      file.save(writesAllowed.replace("write-threshold=100000", "write-threshold=20"));
      assertReloaded(app.jvm(), "hotkey.detect.write-threshold: 100000 -> 20");
      JsonObject report =
          app.awaitReport(
              r -> hotKey(r, HOT) != null && hotKey(r, HOT).get("writeHot").getAsBoolean(),
              Duration.ofSeconds(10));
      assertTrue(
          hotKey(report, HOT) != null && hotKey(report, HOT).get("writeHot").getAsBoolean(),
          () -> "not write-hot: " + report.get("hotKeys"));
      assertTrue(
          app.jvm().snapshot().stderrContains("write-hot key: key=\"" + HOT + "\""),
          app.jvm()::output);
      ReadSpan writeHot = ReadSpan.untilGets(redis, List.of(app), 600);
      assertEquals(0, writeHot.hits, () -> "a write-hot key served locally: " + writeHot);
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void theReportIntervalSetsTheCadenceOfTheTopKeysLine() throws Exception {
    LiveConfigFile file = LiveConfigFile.create(dir, START);
    try (LiveService app = start(file, "reload-report")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      assertEquals(0, topKeysLinesAfter(app, -1), "a top-keys line with the report off");

      file.save(START.replace("interval=0", "interval=1s"));
      Duration threeLines = timeToLines(app, "hotkey.report.interval: 0 -> 1s", 3, 10);
      // about 3 s; a stalled scheduler may catch up, but not by half
      assertTrue(threeLines.toMillis() >= 1_500, () -> "3 lines at 1 s within " + threeLines);

      file.save(START.replace("interval=0", "interval=3s"));
      Duration twoLines = timeToLines(app, "hotkey.report.interval: 1s -> 3s", 2, 20);
      // about 6 s; 2 s at the interval before
      assertTrue(twoLines.toMillis() >= 4_000, () -> "2 lines at 3 s within " + twoLines);

      file.save(START);
      assertReloaded(app.jvm(), "hotkey.report.interval: 3s -> 0");
      int reloadedAt = reloadLineIndex(app, "hotkey.report.interval: 3s -> 0");
      // longer than the last interval
      Thread.sleep(3_500);
      assertEquals(0, topKeysLinesAfter(app, reloadedAt), "top-keys lines once turned off");
    }
  }

  /**
   * Saving has been done: waits for the reload of {@code change}, then for {@code lines} top-keys
   * lines after it, at most {@code seconds}; how long they took from the reload line.
   */
  private static Duration timeToLines(LiveService app, String change, int lines, int seconds)
      throws InterruptedException {
    assertReloaded(app.jvm(), change);
    long reloaded = System.nanoTime();
    int from = reloadLineIndex(app, change);
    long deadline = reloaded + Duration.ofSeconds(seconds).toNanos();
    while (topKeysLinesAfter(app, from) < lines && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - reloaded);
    int seen = topKeysLinesAfter(app, from);
    System.out.println(
        "[it] " + seen + " top-keys lines " + took.toMillis() + " ms after " + change);
    assertTrue(
        seen >= lines,
        () ->
            seen
                + " top-keys lines in "
                + seconds
                + " s after "
                + change
                + ":\n"
                + app.jvm().output());
    return took;
  }

  /** Index in stderr of the reload line naming {@code change}. */
  private static int reloadLineIndex(LiveService app, String change) {
    return app.jvm().snapshot().stderrIndexOf(LiveConfigFile.reloadLine(change));
  }

  /** Top-keys lines naming the hot key, in stderr after index {@code from}. */
  private static int topKeysLinesAfter(LiveService app, int from) {
    List<String> stderr = app.jvm().snapshot().stderr();
    int count = 0;
    for (String line : stderr.subList(from + 1, stderr.size())) {
      if (TOP_KEYS_LINE.matcher(line).find()) {
        count++;
      }
    }
    return count;
  }

  private LiveService start(LiveConfigFile file, String name) throws InterruptedException {
    return LiveService.start(file.liveLoadApp(name, redis));
  }
}
