package io.hotkey.demo.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** The API over a real socket, backed by a real Redis server. */
class CatalogHttpApiTest {

  private static RedisEndpoint redis;
  private static RedisClient client;
  private static CatalogServer server;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    redis = RedisEndpoint.startEmbedded();
    client = redis.newPooledClient(4);
    ProductCatalog catalog = new ProductCatalog(client);
    catalog.seed(20);
    server =
        CatalogServer.start(catalog, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
  }

  @AfterAll
  static void stop() {
    server.close();
    client.close();
    redis.close();
  }

  @Test
  void getReturnsTheProductStoredInRedis() throws Exception {
    Map<String, String> stored = client.hgetAll(ProductCatalog.productKey(7));

    HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/products/7")).GET());

    assertEquals(200, response.statusCode());
    assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
    String body = response.body();
    assertTrue(body.startsWith("{\"id\":7,"), body);
    assertTrue(body.contains("\"name\":\"" + stored.get("name") + "\""), body);
    assertTrue(body.contains("\"price\":" + stored.get("price") + ","), body);
    assertTrue(body.contains("\"stock\":" + stored.get("stock") + ","), body);
    assertTrue(body.contains("\"rating\":" + client.get(ProductCatalog.ratingKey(7)) + "}"), body);
  }

  @Test
  void putPriceThenGetSeesTheNewPrice() throws Exception {
    HttpResponse<String> update =
        send(
            HttpRequest.newBuilder(uri("/products/3/price"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"price\": 12.50}")));
    assertEquals(200, update.statusCode(), update.body());
    assertTrue(update.body().contains("\"price\":12.50,"), update.body());

    HttpResponse<String> read = send(HttpRequest.newBuilder(uri("/products/3")).GET());
    assertEquals(200, read.statusCode());
    assertTrue(read.body().contains("\"price\":12.50,"), read.body());
    assertEquals("12.50", client.hget(ProductCatalog.productKey(3), "price"));
  }

  @Test
  void unknownProductIsNotFoundAndIsNotCreatedByAPriceUpdate() throws Exception {
    assertEquals(404, send(HttpRequest.newBuilder(uri("/products/999")).GET()).statusCode());

    HttpResponse<String> update =
        send(
            HttpRequest.newBuilder(uri("/products/999/price"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"price\": 1.00}")));
    assertEquals(404, update.statusCode());
    assertFalse(client.exists(ProductCatalog.productKey(999)));
  }

  @Test
  void rejectsMalformedPricesAndWrongMethods() throws Exception {
    assertEquals(
        400,
        send(HttpRequest.newBuilder(uri("/products/4/price"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"price\": \"cheap\"}")))
            .statusCode());
    assertEquals(
        400,
        send(HttpRequest.newBuilder(uri("/products/4/price"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"price\": 0}")))
            .statusCode());
    HttpResponse<String> wrongMethod = send(HttpRequest.newBuilder(uri("/products/4")).DELETE());
    assertEquals(405, wrongMethod.statusCode());
    assertEquals("GET", wrongMethod.headers().firstValue("Allow").orElseThrow());
  }

  @Test
  void healthReportsRedisUp() throws Exception {
    HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/health")).GET());
    assertEquals(200, response.statusCode());
    assertEquals("{\"status\":\"UP\",\"redis\":\"UP\"}", response.body());
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
