package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static io.hotkey.it.LiveService.hotKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The invalidation fan-out guard in a real JVM tracking a real Redis: a served key that a process
 * without the agent rewrites more often than the JVM reads it stops being served and tracked (Redis
 * pushes its writes here no more, its reads reach Redis, every value read is right) until the
 * cool-down ends, while a key written rarely stays served.
 */
class FanOutIT extends RedisTestBase {
  private static final String STOCK = "stock:7";

  @Test
  void aKeyRewrittenElsewhereFasterThanItIsReadHereStopsBeingServedUntilTheCoolDownEnds()
      throws Exception {
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis).prop("hotkey.cache.fan-out-cool-down", "5s").name("fan-out"))) {
      app.load(HOT, 400);
      app.load(STOCK, 400);
      awaitServed(app, HOT);
      awaitServed(app, STOCK);

      // another service, without the agent: the stock key 500 times a second, the product once
      // every 2 s, each with the value the app expects to read
      Writer writer = new Writer(redis);
      Thread writing = new Thread(writer, "uninstrumented-writer");
      writing.start();
      try {
        assertTrue(
            app.jvm()
                .awaitAgentLine(
                    "^\\[hotkey\\] fan-out key not served: key=\"stock:7\" invalidations=\\d+"
                        + " reads=\\d+ in \\d+ms; written elsewhere more often than read here",
                    Duration.ofSeconds(20)),
            app.jvm()::output);
        JsonObject before = app.report();
        long writesBefore = writer.stockWrites.get();
        Thread.sleep(2000); // a span over which nothing may be served or pushed for the key
        JsonObject after = app.report();
        long writes = writer.stockWrites.get() - writesBefore;

        assertTrue(writes > 400, () -> "the writer fell behind: " + writes + " writes in 2 s");
        assertEquals(
            count(before, STOCK, "hits"), count(after, STOCK, "hits"), "served after demotion");
        assertTrue(
            count(after, STOCK, "misses") > count(before, STOCK, "misses") + 400,
            () -> "its reads did not reach Redis: " + hotKey(after, STOCK));
        long pushes = invalidations(after) - invalidations(before);
        assertTrue(
            pushes <= 3,
            () ->
                pushes + " pushes for " + writes + " writes of an untracked key and 1 of another");
        assertTrue(
            count(after, HOT, "hits") > count(before, HOT, "hits") + 400,
            () -> "the key written rarely stopped being served: " + hotKey(after, HOT));
        PrometheusText metrics =
            PrometheusText.parse(LiveService.get(app.endpoint() + "metrics").body());
        assertEquals(1.0, metrics.value("hotkey_cache_fanout_demotions_total"));
      } finally {
        writer.stop = true;
        writing.join();
      }

      // the writes stopped: after the cool-down the key is served again, and stays so
      awaitServed(app, STOCK);
      assertEquals(0, app.wrongReads(), "wrong values read");
      assertEquals(
          1,
          app.jvm()
              .output()
              .lines()
              .filter(line -> line.contains("fan-out key not served"))
              .count(),
          app.jvm()::output);
    }
  }

  /** Waits until more than 200 reads of {@code key} were answered locally since now. */
  private static void awaitServed(LiveService app, String key) throws Exception {
    long before = count(app.report(), key, "hits");
    JsonObject report =
        app.awaitReport(r -> count(r, key, "hits") > before + 200, Duration.ofSeconds(30));
    assertTrue(
        count(report, key, "hits") > before + 200,
        () -> key + " not served locally: " + report.get("hotKeys"));
  }

  /** A hot key's read figure; 0 when it is not hot or its counts are not published yet. */
  private static long count(JsonObject report, String key, String figure) {
    JsonObject hot = hotKey(report, key);
    JsonElement value = hot == null ? null : hot.get(figure);
    return value == null || value.isJsonNull() ? 0 : value.getAsLong();
  }

  private static long invalidations(JsonObject report) {
    return report.getAsJsonObject("tracking").get("invalidations").getAsLong();
  }

  /** Rewrites the stock key every 2 ms and the product key every 2 s, until stopped. */
  private static final class Writer implements Runnable {
    final AtomicLong stockWrites = new AtomicLong();
    final RedisServer redis;
    volatile boolean stop;

    Writer(RedisServer redis) {
      this.redis = redis;
    }

    @Override
    public void run() {
      try (Jedis jedis = redis.jedis()) {
        long started = System.nanoTime();
        long productWrites = 0;
        while (!stop) {
          jedis.set(STOCK, "value of " + STOCK);
          stockWrites.incrementAndGet();
          long dueProductWrites = 1 + (System.nanoTime() - started) / 2_000_000_000L;
          if (productWrites < dueProductWrites) {
            jedis.set(HOT, "value of " + HOT);
            productWrites++;
          }
          Thread.sleep(2);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
