package io.hotkey.demo.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.demo.catalog.CatalogServer;
import io.hotkey.demo.catalog.ProductCatalog;
import io.hotkey.demo.flashsale.FlashSale;
import io.hotkey.demo.redis.RedisEndpoint;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The retrying order driver against the real service and a real Redis, in this JVM and without the
 * agent: nothing deduplicates, so every retry creates another order, and the driver's account must
 * say so.
 */
class OrderDriverTest {

  private static RedisEndpoint redis;
  private static RedisClient jedis;
  private static io.lettuce.core.RedisClient lettuce;
  private static StatefulRedisConnection<String, String> lettuceConnection;
  private static FlashSale flashSale;
  private static CatalogServer server;
  private static URI service;

  @BeforeAll
  static void start() {
    redis = RedisEndpoint.startEmbedded();
    jedis = redis.newPooledClient(4);
    ProductCatalog catalog = new ProductCatalog(jedis);
    catalog.seed(10);
    lettuce = redis.newLettuceClient();
    lettuceConnection = lettuce.connect();
    flashSale = new FlashSale(lettuceConnection);
    server =
        CatalogServer.start(
            catalog, flashSale, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    service = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterAll
  static void stop() {
    server.close();
    lettuceConnection.close();
    RedisEndpoint.shutDown(lettuce);
    jedis.close();
    redis.close();
  }

  @Test
  void withoutTheAgentEveryRetryCreatesAnotherOrderAndTheAccountSaysSo() throws Exception {
    flashSale.stockUp(1, 3, 1_000);
    OrderDriver.Summary summary;
    try (OrderDriver driver =
        new OrderDriver(service, redis, new OrderDriver.Settings(1, 3, 2, 0.30, 0.30))) {
      driver.placeMany(120, 4);
      summary = driver.summarize();
    }

    assertTrue(summary.retries() > 0, summary.toString());
    assertEquals(120 + summary.retries(), summary.requests());
    assertEquals(0, summary.replayed());
    assertEquals(0, summary.conflicts());
    assertEquals(0, summary.soldOut());
    assertEquals(0, summary.errors());
    assertEquals(0, summary.duplicatesPrevented());
    // Redis' own account: one order per request, so one extra order per retried key.
    assertEquals(summary.requests(), summary.ordersCreated());
    assertEquals(summary.requests(), summary.createdAnswers());
    assertEquals(summary.retries(), summary.duplicateOrders());
    assertEquals(summary.retries(), summary.keysWithDuplicates());
    assertFalse(summary.noOrderCreatedTwice());
    assertTrue(summary.stockAccountedFor(), summary.toString());
    assertEquals(3_000, summary.stockAtStart());
    assertEquals(3_000 - summary.unitsOrdered(), summary.stockLeft());

    String line = summary.line();
    assertTrue(
        line.startsWith(
            String.format(
                "orders created %,d (requests %,d incl. %,d retries: 0 replayed,"
                    + " 0 conflicts) — duplicates prevented: 0 — duplicates created: %,d — stock left %,d of 3,000 —",
                summary.ordersCreated(),
                summary.requests(),
                summary.retries(),
                summary.retries(),
                summary.stockLeft())),
        line);
    assertTrue(
        line.endsWith(
            String.format(
                "no order created twice: FAILED (%,d keys created %,d extra orders)",
                summary.retries(), summary.retries())),
        line);
  }

  @Test
  void ordersBeyondTheStockAreSoldOutAndNothingIsOversold() throws Exception {
    flashSale.stockUp(1, 3, 4);
    OrderDriver.Summary summary;
    try (OrderDriver driver =
        new OrderDriver(service, redis, new OrderDriver.Settings(1, 3, 1, 0, 0))) {
      driver.placeMany(40, 8);
      summary = driver.summarize();
    }

    assertEquals(40, summary.requests());
    assertEquals(12, summary.ordersCreated());
    assertEquals(12, summary.createdAnswers());
    assertEquals(28, summary.soldOut());
    assertEquals(0, summary.stockLeft());
    assertTrue(summary.stockAccountedFor(), summary.toString());
    assertTrue(summary.noOrderCreatedTwice());
    assertTrue(
        summary
            .line()
            .contains(
                ", 28 sold out) — duplicates prevented: 0 — stock left 0 of 12"
                    + " — no order created twice: OK"),
        summary.line());
  }

  @Test
  void answersAreClassifiedTheWayTheAgentAndTheApplicationMarkThem() {
    flashSale.stockUp(1, 1, 1);
    try (OrderDriver driver =
        new OrderDriver(service, redis, new OrderDriver.Settings(1, 1, 1, 0, 0))) {
      driver.record(new HttpCall.Answer(201, "application/json", false, "{}"));
      driver.record(new HttpCall.Answer(201, "application/json", true, "{}"));
      driver.record(new HttpCall.Answer(409, "application/json", true, "{\"error\":\"sold out\"}"));
      driver.record(new HttpCall.Answer(409, "application/problem+json", false, "{}"));
      driver.record(
          new HttpCall.Answer(409, "application/json", false, "{\"error\":\"sold out\"}"));
      driver.record(new HttpCall.Answer(503, "application/problem+json", false, "{}"));

      OrderDriver.Summary summary = driver.summarize();
      assertEquals(1, summary.createdAnswers());
      assertEquals(2, summary.replayed());
      assertEquals(1, summary.conflicts());
      assertEquals(1, summary.soldOut());
      assertEquals(1, summary.errors());
      assertEquals(3, summary.duplicatesPrevented());
    }
  }

  @Test
  void theSummaryLineReadsLikeTheDemoPromises() {
    OrderDriver.Summary withAgent =
        new OrderDriver.Summary(1_024, 212, 812, 198, 14, 0, 0, 812, 0, 0, 0, 812, 1_000, 188);
    assertEquals(
        "orders created 812 (requests 1,024 incl. 212 retries: 198 replayed, 14 conflicts)"
            + " — duplicates prevented: 212 — stock left 188 of 1,000 — no order created twice: OK",
        withAgent.line());
  }
}
