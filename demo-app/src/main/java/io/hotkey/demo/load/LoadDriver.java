package io.hotkey.demo.load;

import io.hotkey.demo.redis.CommandStats;
import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;

/**
 * Drives the shop's HTTP API with flash-sale traffic and prints, once a second, what the
 * application served next to what Redis executed and what the agent reports as hot, so a person can
 * watch Redis calls fall while the application's reads hold up. Reads of a flash-sale product are
 * split between its page (Jedis: HGETALL + GET) and its stock (Lettuce: GET). Alongside, an {@link
 * OrderDriver} places orders with Idempotency-Keys and retries some of them; its account of orders,
 * replays and stock is printed at the end.
 */
public final class LoadDriver {

  /**
   * How the traffic is shaped; product ids run from 1 to {@code productCount}, the flash sale is on
   * the lowest ids.
   */
  public record Settings(
      int threads,
      int productCount,
      int flashSaleProducts,
      double flashSaleShare,
      double priceUpdateShare,
      double stockReadShare,
      int ordersPerSecond,
      int orderThreads) {

    /** Orders per second counts orders placed, not requests: retried orders send two requests. */
    public static Settings flashSale(int threads, int productCount, int ordersPerSecond) {
      return new Settings(
          threads, productCount, FLASH_SALE_PRODUCTS, 0.90, 0.01, 0.50, ordersPerSecond, 4);
    }
  }

  /** Products 1..3 are on sale; the application stocks them up at start. */
  public static final int FLASH_SALE_PRODUCTS = 3;

  private static final String[] READ_COMMANDS = {"get", "hgetall"};
  private static final int HOT_KEYS_SHOWN = 6;
  private static final long PAUSE_AFTER_FAILURE_MILLIS = 100;
  private static final String KEEP_ALIVE_PROPERTY = "http.maxConnections";

  private final URI service;
  private final RedisEndpoint redis;
  private final Settings settings;
  private final SkewedPicker products;
  private final PrintStream out;
  private final LongAdder reads = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final OrderDriver orders;
  private final AgentHotKeys agent = new AgentHotKeys();
  private volatile boolean running = true;

  public LoadDriver(URI service, RedisEndpoint redis, Settings settings, PrintStream out) {
    this.service = service;
    this.redis = redis;
    this.settings = settings;
    this.products =
        new SkewedPicker(
            settings.productCount(), settings.flashSaleProducts(), settings.flashSaleShare());
    this.out = out;
    this.orders =
        new OrderDriver(
            service, redis, OrderDriver.Settings.flashSale(settings.flashSaleProducts()));
  }

  /** Runs for {@code duration}; zero means until the JVM exits. */
  public void run(Duration duration) throws InterruptedException {
    out.printf(
        "[demo] load: %d threads; %.0f%% of requests on flash-sale products 1-%d (%.0f%% of those read the"
            + " stock), the rest uniform over %,d; %.1f%% are price updates%n",
        settings.threads(),
        settings.flashSaleShare() * 100,
        settings.flashSaleProducts(),
        settings.stockReadShare() * 100,
        settings.productCount(),
        settings.priceUpdateShare() * 100);
    out.printf(
        "[demo] orders: %d/s on %d threads, each with an Idempotency-Key; 10%% sent twice at once,"
            + " 10%% sent again after the answer%n",
        settings.ordersPerSecond(), settings.orderThreads());
    out.println(
        "[demo] each second: reads the app served | GET+HGETALL calls Redis executed"
            + " (INFO commandstats) | order requests | hot keys the agent reports (JMX)");
    // HttpURLConnection keeps only 5 idle connections per server unless told otherwise; with more
    // threads the rest would reconnect for every request. The JDK reads this once, when first used.
    if (System.getProperty(KEEP_ALIVE_PROPERTY) == null) {
      System.setProperty(
          KEEP_ALIVE_PROPERTY,
          Integer.toString(Math.max(5, settings.threads() + 2 * settings.orderThreads())));
    }
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "load-report");
              thread.setDaemon(true);
              return thread;
            });
    try (Jedis statsConnection = redis.newConnection()) {
      Reporter reporter = new Reporter(statsConnection);
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < settings.threads(); i++) {
        Thread worker = new Thread(this::work, "load-" + (i + 1));
        worker.setDaemon(true);
        worker.start();
        workers.add(worker);
      }
      for (int i = 0; i < settings.orderThreads() && settings.ordersPerSecond() > 0; i++) {
        Thread worker = new Thread(this::placeOrders, "orders-" + (i + 1));
        worker.setDaemon(true);
        worker.start();
        workers.add(worker);
      }
      Future<?> unused = ticker.scheduleAtFixedRate(reporter::tick, 1, 1, TimeUnit.SECONDS);
      try {
        Thread.sleep(duration.isZero() ? Long.MAX_VALUE : duration.toMillis());
      } finally {
        running = false;
        ticker.shutdown();
        ticker.awaitTermination(5, TimeUnit.SECONDS);
        for (Thread worker : workers) {
          // A retried order sends two requests one after the other.
          worker.join(3L * HttpCall.TIMEOUT_MILLIS);
        }
      }
      reporter.summary();
      out.println("[demo] " + orders.summarize().line());
    } finally {
      orders.close();
    }
  }

  /**
   * Places orders at this thread's share of the configured rate, without catching up after a stall.
   */
  private void placeOrders() {
    SplittableRandom random = new SplittableRandom();
    long interval = Math.round(1e9 * settings.orderThreads() / settings.ordersPerSecond());
    long next = System.nanoTime() + random.nextLong(interval);
    while (running) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        continue;
      }
      orders.placeOne(random);
      next = Math.max(next + interval, System.nanoTime() - interval);
    }
  }

  private void work() {
    SplittableRandom random = new SplittableRandom();
    while (running) {
      int index = products.next(random);
      long id = index + 1L;
      boolean priceUpdate = random.nextDouble() < settings.priceUpdateShare();
      boolean stockRead =
          !priceUpdate && products.isHot(index) && random.nextDouble() < settings.stockReadShare();
      try {
        int status =
            priceUpdate ? updatePrice(id, random) : stockRead ? readStock(id) : readProduct(id);
        if (status != 200) {
          errors.increment();
        } else if (priceUpdate) {
          writes.increment();
        } else {
          reads.increment();
        }
      } catch (IOException e) {
        errors.increment();
        pauseAfterFailure();
      }
    }
  }

  private int readProduct(long id) throws IOException {
    return exchange("GET", "/products/" + id, null);
  }

  private int readStock(long id) throws IOException {
    return exchange("GET", "/products/" + id + "/stock", null);
  }

  private int updatePrice(long id, SplittableRandom random) throws IOException {
    BigDecimal price = BigDecimal.valueOf(random.nextInt(500, 50_000), 2);
    return exchange(
        "PUT", "/products/" + id + "/price", "{\"price\": " + price.toPlainString() + "}");
  }

  private int exchange(String method, String path, String jsonBody) throws IOException {
    return HttpCall.send(service, method, path, jsonBody, Map.of()).status();
  }

  private static void pauseAfterFailure() {
    try {
      Thread.sleep(PAUSE_AFTER_FAILURE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Turns counter snapshots one second apart into the side-by-side line. Runs on the single ticker
   * thread.
   */
  private final class Reporter {

    private final Jedis statsConnection;
    private final long startNanos = System.nanoTime();
    private final CommandStats firstStats;
    private CommandStats lastStats;
    private long lastNanos = startNanos;
    private long lastReads;
    private long lastWrites;
    private long lastErrors;
    private long lastOrderRequests;

    Reporter(Jedis statsConnection) {
      this.statsConnection = statsConnection;
      this.firstStats = CommandStats.read(statsConnection);
      this.lastStats = firstStats;
    }

    void tick() {
      try {
        long now = System.nanoTime();
        CommandStats stats = CommandStats.read(statsConnection);
        double seconds = (now - lastNanos) / 1e9;
        long readsNow = reads.sum();
        long writesNow = writes.sum();
        long errorsNow = errors.sum();
        long orderRequestsNow = orders.requests();
        double appReads = (readsNow - lastReads) / seconds;
        double redisReads = stats.callsSince(lastStats, READ_COMMANDS) / seconds;
        out.printf(
            "[demo] %4ds | app %,8.0f reads/s %,6.0f writes/s %,4d errors | redis %,8.0f GET+HGETALL/s"
                + " (%s per read) | orders %,4.0f req/s | %s%n",
            Math.round((now - startNanos) / 1e9),
            appReads,
            (writesNow - lastWrites) / seconds,
            errorsNow - lastErrors,
            redisReads,
            perRead(redisReads, appReads),
            (orderRequestsNow - lastOrderRequests) / seconds,
            describe(agent.current()));
        lastOrderRequests = orderRequestsNow;
        lastStats = stats;
        lastNanos = now;
        lastReads = readsNow;
        lastWrites = writesNow;
        lastErrors = errorsNow;
      } catch (RuntimeException e) {
        // A failed sample (Redis briefly unreachable) must not cancel the periodic task.
        out.println("[demo] could not sample Redis: " + e);
      }
    }

    void summary() {
      double seconds = (System.nanoTime() - startNanos) / 1e9;
      long totalReads = reads.sum();
      long redisReads = CommandStats.read(statsConnection).callsSince(firstStats, READ_COMMANDS);
      out.printf(
          "[demo] done after %.0f s: app served %,d reads (%,.0f/s), %,d price updates, %,d errors;"
              + " Redis executed %,d GET+HGETALL (%s per read)%n",
          seconds,
          totalReads,
          totalReads / seconds,
          writes.sum(),
          errors.sum(),
          redisReads,
          perRead((double) redisReads, (double) totalReads));
    }

    private String perRead(double redisCalls, double appReads) {
      return appReads == 0 ? "-" : String.format("%.2f", redisCalls / appReads);
    }

    private String describe(Optional<List<String>> hotKeys) {
      if (hotKeys.isEmpty()) {
        return "agent: not attached";
      }
      List<String> keys = hotKeys.get();
      if (keys.isEmpty()) {
        return "hot keys: none";
      }
      String shown = String.join(", ", keys.subList(0, Math.min(HOT_KEYS_SHOWN, keys.size())));
      return "hot keys ("
          + keys.size()
          + "): "
          + shown
          + (keys.size() > HOT_KEYS_SHOWN ? ", +" + (keys.size() - HOT_KEYS_SHOWN) + " more" : "");
    }
  }
}
