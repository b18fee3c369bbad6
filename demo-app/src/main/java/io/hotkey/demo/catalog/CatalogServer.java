package io.hotkey.demo.catalog;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.hotkey.demo.flashsale.FlashSale;
import io.hotkey.demo.flashsale.PlaceOrderResult;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The shop's HTTP API on the JDK's built-in server. Catalogue (Jedis): {@code GET /products/{id}},
 * {@code PUT /products/{id}/price} with {@code {"price": 12.34}}, {@code GET /health}. Flash sale
 * (Lettuce), when a {@link FlashSale} is given: {@code GET /products/{id}/stock}, {@code POST
 * /orders} with {@code {"productId": 1, "quantity": 1}} (201 and the order; 409 {@code "sold out"};
 * 404 when the product is not on sale), {@code GET /orders/{id}}.
 *
 * <p>The application itself does nothing about retried orders: it records the request's {@code
 * Idempotency-Key} header in the order and that is all. Deduplication is the agent's job ({@code
 * -Dhotkey.idempotency.routes="POST /orders"}).
 */
public final class CatalogServer implements AutoCloseable {

  private static final Pattern PRODUCT_PATH =
      Pattern.compile("^/products/(\\d{1,18})(/price|/stock)?$");
  private static final Pattern ORDER_PATH = Pattern.compile("^/orders(?:/(\\d{1,18}))?$");
  private static final Pattern PRODUCT_ID_FIELD =
      Pattern.compile("\"productId\"\\s*:\\s*\"?(\\d{1,18})\"?");
  private static final Pattern QUANTITY_FIELD =
      Pattern.compile("\"quantity\"\\s*:\\s*\"?(-?\\d{1,9})\"?");
  private static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
  private static final Pattern PRICE_FIELD =
      Pattern.compile("\"price\"\\s*:\\s*\"?(\\d{1,9}(?:\\.\\d{1,2})?)\"?");
  private static final int MAX_BODY_BYTES = 1024;
  // The default accept backlog (50) resets connections when a load driver opens many at once.
  private static final int ACCEPT_BACKLOG = 1024;
  private static final String NO_DELAY_PROPERTY = "sun.net.httpserver.nodelay";

  private final ProductCatalog catalog;
  private final FlashSale flashSale;
  private final HttpServer server;
  private final ExecutorService workers;

  private CatalogServer(
      ProductCatalog catalog, FlashSale flashSale, HttpServer server, ExecutorService workers) {
    this.catalog = catalog;
    this.flashSale = flashSale;
    this.server = server;
    this.workers = workers;
  }

  /** The catalogue alone, without the flash sale's routes. */
  public static CatalogServer start(
      ProductCatalog catalog, InetSocketAddress address, int workerThreads) {
    return start(catalog, null, address, workerThreads);
  }

  /**
   * Binds {@code address} (port 0 picks a free one) and serves requests on {@code workerThreads}
   * threads; {@code flashSale} may be null, then stock and order routes answer 404.
   */
  public static CatalogServer start(
      ProductCatalog catalog, FlashSale flashSale, InetSocketAddress address, int workerThreads) {
    // Without TCP_NODELAY the server's separate header and body writes meet the client's delayed
    // ACK
    // and every keep-alive response waits ~40 ms. The JDK server reads this once, when first used.
    if (System.getProperty(NO_DELAY_PROPERTY) == null) {
      System.setProperty(NO_DELAY_PROPERTY, "true");
    }
    HttpServer server;
    try {
      server = HttpServer.create(address, ACCEPT_BACKLOG);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on " + address + " (set PORT to use another port)", e);
    }
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService workers =
        Executors.newFixedThreadPool(
            workerThreads,
            task -> {
              Thread thread = new Thread(task, "catalog-http-" + threadNumber.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    CatalogServer catalogServer = new CatalogServer(catalog, flashSale, server, workers);
    server.setExecutor(workers);
    server.createContext("/products/", guarded(catalogServer::routeProducts));
    if (flashSale != null) {
      server.createContext("/orders", guarded(catalogServer::routeOrders));
    }
    server.createContext("/health", guarded(catalogServer::health));
    server.start();
    return catalogServer;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }

  private void routeProducts(HttpExchange exchange) throws IOException {
    Matcher path = PRODUCT_PATH.matcher(exchange.getRequestURI().getPath());
    if (!path.matches()) {
      Json.send(exchange, 404, Json.error("no such resource"));
      return;
    }
    long id = Long.parseLong(path.group(1));
    String resource = path.group(2) == null ? "" : path.group(2);
    String method = exchange.getRequestMethod();
    if (resource.isEmpty() && method.equals("GET")) {
      respondWithProduct(exchange, id, catalog.find(id));
    } else if (resource.equals("/price") && method.equals("PUT")) {
      updatePrice(exchange, id);
    } else if (resource.equals("/stock") && method.equals("GET")) {
      stock(exchange, id);
    } else {
      exchange.getResponseHeaders().set("Allow", resource.equals("/price") ? "PUT" : "GET");
      Json.send(exchange, 405, Json.error(method + " not allowed here"));
    }
  }

  private void stock(HttpExchange exchange, long id) throws IOException {
    OptionalLong stock = flashSale == null ? OptionalLong.empty() : flashSale.stock(id);
    if (stock.isPresent()) {
      Json.send(exchange, 200, "{\"productId\":" + id + ",\"stock\":" + stock.getAsLong() + "}");
    } else {
      Json.send(exchange, 404, Json.error("product " + id + " is not in the flash sale"));
    }
  }

  private void routeOrders(HttpExchange exchange) throws IOException {
    Matcher path = ORDER_PATH.matcher(exchange.getRequestURI().getPath());
    if (!path.matches()) {
      Json.send(exchange, 404, Json.error("no such resource"));
      return;
    }
    String method = exchange.getRequestMethod();
    if (path.group(1) == null && method.equals("POST")) {
      placeOrder(exchange);
    } else if (path.group(1) != null && method.equals("GET")) {
      long id = Long.parseLong(path.group(1));
      var order = flashSale.order(id);
      if (order.isPresent()) {
        Json.send(exchange, 200, order.get().toJson());
      } else {
        Json.send(exchange, 404, Json.error("order " + id + " not found"));
      }
    } else {
      exchange.getResponseHeaders().set("Allow", path.group(1) == null ? "POST" : "GET");
      Json.send(exchange, 405, Json.error(method + " not allowed here"));
    }
  }

  private void placeOrder(HttpExchange exchange) throws IOException {
    String body = readBody(exchange.getRequestBody());
    Matcher productId = PRODUCT_ID_FIELD.matcher(body);
    Matcher quantity = QUANTITY_FIELD.matcher(body);
    if (body.length() > MAX_BODY_BYTES || !productId.find()) {
      Json.send(
          exchange, 400, Json.error("expected a body like {\"productId\": 1, \"quantity\": 1}"));
      return;
    }
    int units = quantity.find() ? Integer.parseInt(quantity.group(1)) : 1;
    if (units < 1 || units > FlashSale.MAX_QUANTITY) {
      Json.send(exchange, 400, Json.error("quantity must be 1.." + FlashSale.MAX_QUANTITY));
      return;
    }
    String idempotencyKey = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_HEADER);
    PlaceOrderResult result =
        flashSale.placeOrder(
            Long.parseLong(productId.group(1)),
            units,
            idempotencyKey == null ? "" : idempotencyKey.trim());
    if (result instanceof PlaceOrderResult.Created created) {
      exchange.getResponseHeaders().set("Location", "/orders/" + created.order().id());
      Json.send(exchange, 201, created.order().toJson());
    } else if (result instanceof PlaceOrderResult.SoldOut soldOut) {
      Json.send(
          exchange,
          409,
          "{\"error\":\"sold out\",\"productId\":"
              + soldOut.productId()
              + ",\"stock\":"
              + soldOut.stockLeft()
              + "}");
    } else {
      Json.send(
          exchange,
          404,
          Json.error(
              "product "
                  + ((PlaceOrderResult.NotOnSale) result).productId()
                  + " is not in the flash sale"));
    }
  }

  private void updatePrice(HttpExchange exchange, long id) throws IOException {
    String body = readBody(exchange.getRequestBody());
    Matcher price = PRICE_FIELD.matcher(body);
    if (body.length() > MAX_BODY_BYTES || !price.find()) {
      Json.send(exchange, 400, Json.error("expected a body like {\"price\": 12.34}"));
      return;
    }
    BigDecimal newPrice = new BigDecimal(price.group(1));
    if (newPrice.signum() <= 0) {
      Json.send(exchange, 400, Json.error("price must be positive"));
      return;
    }
    respondWithProduct(exchange, id, catalog.updatePrice(id, newPrice));
  }

  private void respondWithProduct(HttpExchange exchange, long id, Optional<Product> product)
      throws IOException {
    if (product.isPresent()) {
      Json.send(exchange, 200, product.get().toJson());
    } else {
      Json.send(exchange, 404, Json.error("product " + id + " not found"));
    }
  }

  private void health(HttpExchange exchange) throws IOException {
    if (catalog.redisReachable()) {
      Json.send(exchange, 200, "{\"status\":\"UP\",\"redis\":\"UP\"}");
    } else {
      Json.send(exchange, 503, "{\"status\":\"DOWN\",\"redis\":\"DOWN\"}");
    }
  }

  /**
   * Turns failures into JSON errors (503 when Redis is the cause) and always completes the
   * exchange.
   */
  private static HttpHandler guarded(HttpHandler handler) {
    return exchange -> {
      try (exchange) {
        try {
          handler.handle(exchange);
        } catch (JedisException | RedisException e) {
          sendFailure(exchange, 503, "redis unavailable: " + e.getMessage());
        } catch (RuntimeException e) {
          sendFailure(exchange, 500, "internal error: " + e);
        }
      }
    };
  }

  /**
   * Reads at most one byte past the limit, enough to tell an oversized body from an acceptable one.
   */
  private static String readBody(InputStream body) throws IOException {
    return new String(body.readNBytes(MAX_BODY_BYTES + 1), StandardCharsets.UTF_8);
  }

  /**
   * Answers with an error unless a response was already started, in which case the connection is
   * just dropped.
   */
  private static void sendFailure(HttpExchange exchange, int status, String message)
      throws IOException {
    if (exchange.getResponseCode() == -1) {
      Json.send(exchange, status, Json.error(message));
    }
  }
}
