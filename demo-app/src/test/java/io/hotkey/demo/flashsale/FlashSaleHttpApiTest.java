package io.hotkey.demo.flashsale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.demo.catalog.CatalogServer;
import io.hotkey.demo.catalog.ProductCatalog;
import io.hotkey.demo.redis.RedisEndpoint;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** Stock and orders over a real socket, on Lettuce, against a real Redis server; no agent. */
class FlashSaleHttpApiTest {

  private static final Pattern ORDER_ID = Pattern.compile("^\\{\"id\":(\\d+),");

  private static RedisEndpoint redis;
  private static RedisClient jedis;
  private static io.lettuce.core.RedisClient lettuce;
  private static StatefulRedisConnection<String, String> lettuceConnection;
  private static FlashSale flashSale;
  private static CatalogServer server;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    redis = RedisEndpoint.startEmbedded();
    jedis = redis.newPooledClient(4);
    ProductCatalog catalog = new ProductCatalog(jedis);
    catalog.seed(20);
    lettuce = redis.newLettuceClient();
    lettuceConnection = lettuce.connect();
    flashSale = new FlashSale(lettuceConnection);
    // More workers than buyers' threads, so the concurrent buyers really run at once.
    server =
        CatalogServer.start(
            catalog, flashSale, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
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
  void anOrderTakesStockRecordsTheOrderWithItsKeyAndCanBeReadBack() throws Exception {
    flashSale.stockUp(2, 2, 5);
    long sequenceBefore = sequence();

    HttpResponse<String> placed = postOrder("{\"productId\": 2, \"quantity\": 2}", "key-one");

    assertEquals(201, placed.statusCode(), placed.body());
    assertEquals("application/json", placed.headers().firstValue("Content-Type").orElseThrow());
    long id = orderId(placed.body());
    assertEquals(sequenceBefore + 1, id);
    assertEquals(sequenceBefore + 1, sequence());
    assertEquals("/orders/" + id, placed.headers().firstValue("Location").orElseThrow());
    assertTrue(
        placed
            .body()
            .contains(
                "\"productId\":2,\"quantity\":2,\"status\":\"CREATED\""
                    + ",\"idempotencyKey\":\"key-one\""),
        placed.body());
    assertEquals("3", jedis.get(FlashSale.stockKey(2)));
    assertEquals("key-one", jedis.hget(FlashSale.orderKey(id), FlashSale.IDEMPOTENCY_KEY_FIELD));

    HttpResponse<String> read = send(HttpRequest.newBuilder(uri("/orders/" + id)).GET());
    assertEquals(200, read.statusCode());
    assertEquals(placed.body(), read.body());
  }

  @Test
  void stockIsReadThroughLettuce() throws Exception {
    flashSale.stockUp(3, 3, 7);
    try (Jedis observer = redis.newConnection()) {
      HttpResponse<String> stock = send(HttpRequest.newBuilder(uri("/products/3/stock")).GET());

      assertEquals(200, stock.statusCode(), stock.body());
      assertEquals("{\"productId\":3,\"stock\":7}", stock.body());
      // Redis itself says the last command of the Lettuce connection was that GET.
      String lettuceLine =
          observer
              .clientList()
              .lines()
              .filter(line -> line.contains(" name=" + RedisEndpoint.LETTUCE_CLIENT_NAME + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no Lettuce connection in CLIENT LIST"));
      assertTrue(lettuceLine.contains(" cmd=get "), lettuceLine);
    }
    assertEquals(404, send(HttpRequest.newBuilder(uri("/products/15/stock")).GET()).statusCode());
  }

  @Test
  void fiftyConcurrentBuyersForTwentyUnitsCreateExactlyTwentyOrders() throws Exception {
    flashSale.stockUp(1, 1, 20);
    long sequenceBefore = sequence();
    int buyers = 50;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(buyers);
    List<Future<HttpResponse<String>>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < buyers; i++) {
        String key = "buyer-" + i;
        answers.add(
            pool.submit(
                () -> {
                  go.await();
                  return postOrder("{\"productId\": 1, \"quantity\": 1}", key);
                }));
      }
      go.countDown();
      int created = 0;
      int soldOut = 0;
      Set<Long> orderIds = new HashSet<>();
      for (Future<HttpResponse<String>> answer : answers) {
        HttpResponse<String> response = answer.get();
        if (response.statusCode() == 201) {
          created++;
          orderIds.add(orderId(response.body()));
        } else {
          assertEquals(409, response.statusCode(), response.body());
          assertTrue(
              response.body().startsWith("{\"error\":\"sold out\",\"productId\":1,\"stock\":0"),
              response.body());
          soldOut++;
        }
      }
      assertEquals(20, created);
      assertEquals(30, soldOut);
      assertEquals(20, orderIds.size());
      assertEquals("0", jedis.get(FlashSale.stockKey(1)));
      assertEquals(sequenceBefore + 20, sequence());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rejectsBadOrdersWithoutTouchingStock() throws Exception {
    flashSale.stockUp(2, 2, 5);
    long sequenceBefore = sequence();

    assertEquals(400, postOrder("{\"quantity\": 1}", "k").statusCode());
    assertEquals(400, postOrder("{\"productId\": 2, \"quantity\": 0}", "k").statusCode());
    assertEquals(400, postOrder("{\"productId\": 2, \"quantity\": -1}", "k").statusCode());
    assertEquals(400, postOrder("{\"productId\": 2, \"quantity\": 101}", "k").statusCode());
    assertEquals(409, postOrder("{\"productId\": 2, \"quantity\": 6}", "k").statusCode());
    assertEquals(404, postOrder("{\"productId\": 12, \"quantity\": 1}", "k").statusCode());
    assertEquals(404, send(HttpRequest.newBuilder(uri("/orders/999999")).GET()).statusCode());
    assertEquals(405, send(HttpRequest.newBuilder(uri("/orders")).GET()).statusCode());
    assertEquals(
        404,
        send(HttpRequest.newBuilder(uri("/ordersx"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"productId\": 2}")))
            .statusCode());

    assertEquals("5", jedis.get(FlashSale.stockKey(2)));
    assertEquals(sequenceBefore, sequence());
  }

  private static long sequence() {
    String sequence = jedis.get(FlashSale.ORDER_SEQUENCE_KEY);
    return sequence == null ? 0 : Long.parseLong(sequence);
  }

  private static long orderId(String body) {
    Matcher id = ORDER_ID.matcher(body);
    assertTrue(id.find(), body);
    return Long.parseLong(id.group(1));
  }

  private static HttpResponse<String> postOrder(String json, String idempotencyKey)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(uri("/orders"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
