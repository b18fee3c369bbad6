package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload of the properties file named by {@code hotkey.config}, in a real JVM reading a real
 * Redis: an edit applies within two seconds without a restart and is logged as a diff, an invalid
 * edit is refused and the running configuration keeps working, a key that cannot change live is
 * named with the advice to restart.
 */
class ConfigReloadIT extends RedisTestBase {
  private static final String START =
      "hotkey.detect.threshold=200\nhotkey.detect.cool-down=1s\nhotkey.report.interval=0\n";

  @TempDir Path dir;

  @Test
  void raisingTheThresholdDemotesTheKey() throws Exception {
    Path file = write(dir.resolve("hotkey.properties"), START);
    try (LiveService app = start(file, "reload-threshold")) {
      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      write(file, START.replace("threshold=200", "threshold=5000"));
      assertLine(app, "configuration reloaded: hotkey.detect.threshold: 200 -> 5000");
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
    Path file = write(dir.resolve("hotkey.properties"), START);
    try (LiveService app = start(file, "reload-exclude")) {
      app.load(HOT, 500);
      app.awaitHot(HOT, 300);
      awaitHitsMoving(app);
      write(file, START + "hotkey.cache.exclude=product:*\n");
      assertLine(app, "configuration reloaded: hotkey.cache.exclude: \"\" -> product:*");
      long hits = cacheHits(app);
      long gets = redis.stats().calls("get");
      Thread.sleep(2000);
      long servedSince = cacheHits(app) - hits;
      long redisGets = redis.stats().calls("get") - gets;
      assertEquals(0, servedSince, "reads served locally after the exclude");
      assertTrue(redisGets >= 600, () -> "Redis saw only " + redisGets + " GETs in 2 s");
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  @Test
  void anInvalidEditIsRefusedAndTheRunningConfigurationKeepsWorking() throws Exception {
    Path file = write(dir.resolve("hotkey.properties"), START);
    try (LiveService app = start(file, "reload-invalid")) {
      app.load(HOT, 500);
      app.awaitHot(HOT, 300);
      write(
          file,
          START.replace("threshold=200", "threshold=lots") + "hotkey.cache.exclude=product:*\n");
      assertLine(app, "configuration reload refused, running configuration kept:");
      String error = "    hotkey.detect.threshold: \"lots\" (from file " + file + ") is not";
      long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (!app.jvm().output().contains(error) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(app.jvm().output().contains(error), app.jvm()::output);
      // the exclude of the refused file is not applied: the key is still served
      awaitHitsMoving(app);
      JsonObject report = app.report();
      assertEquals(200, report.getAsJsonObject("detector").get("threshold").getAsLong());

      write(file, START.replace("threshold=200", "threshold=150") + "hotkey.detect.window=2s\n");
      assertLine(app, "configuration reloaded: hotkey.detect.threshold: 200 -> 150");
      assertLine(
          app,
          "warning: configuration change not applied while the JVM runs: hotkey.detect.window: 1s"
              + " -> 2s (fixed at start); restart the JVM to apply it");
      assertEquals(150, app.report().getAsJsonObject("detector").get("threshold").getAsLong());
      assertEquals(0, app.wrongReads(), "wrong values read");
    }
  }

  private static LiveService start(Path file, String name) throws InterruptedException {
    return LiveService.start(
        AgentJvm.app(name, Clients.jedisClasspath(Clients.JEDIS_8), "io.hotkey.it.app.LiveLoadApp")
            .prop("hotkey.config", file.toString())
            .args("--redis", redis.address())
            .name(name));
  }

  /** Replaces the file at once, as an editor that saves by rename does. */
  private static Path write(Path file, String content) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, content, StandardCharsets.UTF_8);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  /** The reload is polled every second: its line within two. */
  private static void assertLine(LiveService app, String text) throws InterruptedException {
    assertTrue(
        app.jvm().awaitAgentLine(Pattern.quote(text), Duration.ofSeconds(2)),
        () -> "no line " + text + " within 2 s:\n" + app.jvm().output());
  }

  private static long cacheHits(LiveService app) throws IOException, InterruptedException {
    return app.report().getAsJsonObject("cache").get("hits").getAsLong();
  }

  private static void awaitHitsMoving(LiveService app) throws Exception {
    long before = cacheHits(app);
    JsonObject report =
        app.awaitReport(
            r -> r.getAsJsonObject("cache").get("hits").getAsLong() > before + 200,
            Duration.ofSeconds(10));
    assertTrue(
        report.getAsJsonObject("cache").get("hits").getAsLong() > before + 200,
        () -> "reads not served locally: " + report.get("cache"));
  }
}
