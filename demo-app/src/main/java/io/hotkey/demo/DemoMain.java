package io.hotkey.demo;

import io.hotkey.demo.catalog.CatalogServer;
import io.hotkey.demo.catalog.ProductCatalog;
import io.hotkey.demo.flashsale.FlashSale;
import io.hotkey.demo.load.LoadDriver;
import io.hotkey.demo.redis.RedisEndpoint;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.RedisClient;

/**
 * The shop demo: a product catalogue on Jedis and a flash sale (stock and orders) on Lettuce.
 * Without arguments (or with {@code --load}) it starts Redis, the HTTP service and the flash-sale
 * load driver, runs for {@code --seconds} and exits; {@code --serve} runs only the service until
 * the process is stopped. It configures nothing about idempotency itself: that is the agent's
 * {@code hotkey.idempotency.routes}.
 */
public final class DemoMain {

  private static final String USAGE =
      """
            usage: java [-javaagent:hotkey-agent.jar] -jar hotkey-demo.jar [--serve | --load] [options]
              (no mode)         same as --load
              --load            service + embedded/REDIS_URL Redis + flash-sale load driver, then exit
              --serve           only the HTTP service, until stopped
              --seconds N       how long --load runs (default 60, 0 = until stopped)
              --threads N       load driver threads (default 8)
              --products N      products seeded at start (default 10000)
              --stock N         units in stock for each flash-sale product 1-3 (default 400)
              --orders N        orders placed per second by the load driver (default 30, 0 = none)
            environment: PORT (HTTP port, default 8080), REDIS_URL (redis://host:port; embedded Redis when unset)
            """;

  private static final int HTTP_WORKER_THREADS = 32;

  private enum Mode {
    LOAD,
    SERVE
  }

  private DemoMain() {}

  public static void main(String[] args) throws InterruptedException {
    Mode mode = Mode.LOAD;
    int seconds = 60;
    int threads = 8;
    int productCount = 10_000;
    int stockPerProduct = 400;
    int ordersPerSecond = 30;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--load" -> mode = Mode.LOAD;
        case "--serve" -> mode = Mode.SERVE;
        case "--seconds" -> seconds = nonNegativeInt(args, ++i);
        case "--threads" -> threads = positiveInt(args, ++i);
        case "--products" -> productCount = positiveInt(args, ++i);
        case "--stock" -> stockPerProduct = nonNegativeInt(args, ++i);
        case "--orders" -> ordersPerSecond = nonNegativeInt(args, ++i);
        case "-h", "--help" -> {
          System.out.print(USAGE);
          return;
        }
        default -> fail("unknown argument " + args[i]);
      }
    }
    int port = httpPort();
    PrintStream out = System.out;

    RedisEndpoint redis = RedisEndpoint.fromEnvironment();
    out.println("[demo] using " + redis.describe());
    RedisClient client = redis.newPooledClient(HTTP_WORKER_THREADS);
    io.lettuce.core.RedisClient lettuce = redis.newLettuceClient();
    StatefulRedisConnection<String, String> lettuceConnection = null;
    CatalogServer server;
    int flashSaleProducts = Math.min(LoadDriver.FLASH_SALE_PRODUCTS, productCount);
    try {
      ProductCatalog catalog = new ProductCatalog(client);
      long seedStart = System.nanoTime();
      catalog.seed(productCount);
      out.printf(
          "[demo] seeded %,d products in %.1f s%n",
          productCount, (System.nanoTime() - seedStart) / 1e9);
      lettuceConnection = lettuce.connect();
      FlashSale flashSale = new FlashSale(lettuceConnection);
      flashSale.stockUp(1, flashSaleProducts, stockPerProduct);
      out.printf(
          "[demo] flash sale on products 1-%d: %,d units each (stock:<id>, Lettuce)%n",
          flashSaleProducts, stockPerProduct);
      server =
          CatalogServer.start(catalog, flashSale, new InetSocketAddress(port), HTTP_WORKER_THREADS);
    } catch (RuntimeException e) {
      // An embedded redis-server is a separate process: it must not outlive a failed start.
      if (lettuceConnection != null) {
        lettuceConnection.close();
      }
      RedisEndpoint.shutDown(lettuce);
      client.close();
      redis.close();
      System.err.println(
          "hotkey-demo: could not start: "
              + e.getMessage()
              + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
      System.exit(1);
      return;
    }
    out.println(
        "[demo] API on http://localhost:"
            + server.port()
            + "  (GET /products/{id}, PUT /products/{id}/price, GET /health;"
            + " flash sale: GET /products/{id}/stock, POST /orders, GET /orders/{id})");
    StatefulRedisConnection<String, String> flashSaleConnection = lettuceConnection;

    AtomicBoolean stopped = new AtomicBoolean();
    Runnable shutdown =
        () -> {
          if (stopped.compareAndSet(false, true)) {
            server.close();
            flashSaleConnection.close();
            RedisEndpoint.shutDown(lettuce);
            client.close();
            redis.close();
            if (redis.isEmbedded()) {
              out.println("[demo] embedded Redis stopped");
            }
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "demo-shutdown"));

    if (mode == Mode.SERVE) {
      Thread.sleep(Long.MAX_VALUE);
    }
    URI service = URI.create("http://127.0.0.1:" + server.port());
    LoadDriver.Settings load =
        LoadDriver.Settings.flashSale(threads, productCount, ordersPerSecond);
    new LoadDriver(
            service,
            redis,
            new LoadDriver.Settings(
                load.threads(),
                load.productCount(),
                flashSaleProducts,
                load.flashSaleShare(),
                load.priceUpdateShare(),
                load.stockReadShare(),
                load.ordersPerSecond(),
                load.orderThreads()),
            out)
        .run(Duration.ofSeconds(seconds));
    shutdown.run();
  }

  private static int httpPort() {
    String port = System.getenv("PORT");
    if (port == null || port.isBlank()) {
      return 8080;
    }
    try {
      return Integer.parseInt(port.trim());
    } catch (NumberFormatException e) {
      return fail("PORT must be a number, got " + port);
    }
  }

  private static int positiveInt(String[] args, int index) {
    int value = nonNegativeInt(args, index);
    return value > 0 ? value : fail(args[index - 1] + " must be at least 1");
  }

  private static int nonNegativeInt(String[] args, int index) {
    if (index >= args.length) {
      return fail(args[index - 1] + " needs a number");
    }
    try {
      int value = Integer.parseInt(args[index]);
      return value >= 0 ? value : fail(args[index - 1] + " must not be negative");
    } catch (NumberFormatException e) {
      return fail(args[index - 1] + " needs a number, got " + args[index]);
    }
  }

  private static int fail(String message) {
    System.err.println("hotkey-demo: " + message);
    System.err.print(USAGE);
    System.exit(2);
    throw new AssertionError("unreachable");
  }
}
