package io.hotkey.demo.load;

import io.hotkey.demo.flashsale.FlashSale;
import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * Places flash-sale orders the way real clients do: every order carries a fresh {@code
 * Idempotency-Key} (a UUID), and a share of them is sent twice with the same key and body, either
 * by two threads at once (a double click, a gateway retrying a slow request) or again after the
 * first answer came back (a client that lost the answer). It counts what the HTTP answers say and,
 * at the end, checks in Redis itself how many orders exist and whether any key created more than
 * one.
 *
 * <p>The application does nothing about retries: without the agent every retry creates another
 * order; with {@code -Dhotkey.idempotency.routes="POST /orders"} a retry gets the first answer
 * replayed ({@code Idempotent-Replayed: true}) or, while the first is still running, a 409 problem.
 */
public final class OrderDriver implements AutoCloseable {

  /**
   * Flash-sale products {@code firstProductId..firstProductId+products-1}; shares are of orders
   * placed.
   */
  public record Settings(
      long firstProductId,
      int products,
      int maxQuantity,
      double concurrentRetryShare,
      double laterRetryShare) {

    public Settings {
      if (products < 1
          || maxQuantity < 1
          || maxQuantity > FlashSale.MAX_QUANTITY
          || concurrentRetryShare < 0
          || laterRetryShare < 0
          || concurrentRetryShare + laterRetryShare > 1) {
        throw new IllegalArgumentException("bad order settings: " + this);
      }
    }

    /** One unit per order; 10% sent twice at once, 10% sent again after the answer. */
    public static Settings flashSale(int products) {
      return new Settings(1, products, 1, 0.10, 0.10);
    }
  }

  private static final String PROBLEM_JSON = "application/problem+json";
  private static final long TWIN_TIMEOUT_SECONDS = 15;

  private final URI service;
  private final Settings settings;
  private final Jedis observer;
  private final long sequenceAtStart;
  private final long stockAtStart;
  private final ExecutorService twins;

  private final LongAdder requests = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder createdAnswers = new LongAdder();
  private final LongAdder replayed = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final LongAdder soldOut = new LongAdder();
  private final LongAdder errors = new LongAdder();

  /**
   * Reads the starting point (order sequence, stock) from Redis, so orders of earlier runs are not
   * counted.
   */
  public OrderDriver(URI service, RedisEndpoint redis, Settings settings) {
    this.service = service;
    this.settings = settings;
    this.observer = redis.newConnection();
    this.sequenceAtStart = orderSequence();
    this.stockAtStart = stockLeft();
    AtomicInteger number = new AtomicInteger();
    this.twins =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "order-twin-" + number.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Places one order: a single request, two identical requests at once, or a request and its retry
   * after the answer. Safe to call from many threads.
   */
  public void placeOne(SplittableRandom random) {
    String key = UUID.randomUUID().toString();
    long productId = settings.firstProductId() + random.nextInt(settings.products());
    int quantity = 1 + random.nextInt(settings.maxQuantity());
    String body = "{\"productId\":" + productId + ",\"quantity\":" + quantity + "}";
    double scenario = random.nextDouble();
    if (scenario < settings.concurrentRetryShare()) {
      sendTwiceAtOnce(key, body);
    } else if (scenario < settings.concurrentRetryShare() + settings.laterRetryShare()) {
      send(key, body);
      retries.increment();
      send(key, body);
    } else {
      send(key, body);
    }
  }

  /**
   * Runs {@code orders} orders on {@code threads} threads as fast as the service answers; returns
   * when done.
   */
  public void placeMany(int orders, int threads) throws InterruptedException {
    AtomicInteger left = new AtomicInteger(orders);
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread worker =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom();
                while (left.getAndDecrement() > 0) {
                  placeOne(random);
                }
              },
              "orders-" + (i + 1));
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
  }

  public long requests() {
    return requests.sum();
  }

  private void sendTwiceAtOnce(String key, String body) {
    CyclicBarrier together = new CyclicBarrier(2);
    retries.increment();
    Future<?> twin =
        twins.submit(
            () -> {
              awaitQuietly(together);
              send(key, body);
            });
    awaitQuietly(together);
    send(key, body);
    try {
      twin.get(TWIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      errors.increment();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitQuietly(CyclicBarrier barrier) {
    try {
      barrier.await(TWIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      // The other side failed to show up: send anyway, the request is still a duplicate.
    }
  }

  private void send(String key, String body) {
    requests.increment();
    try {
      record(HttpCall.send(service, "POST", "/orders", body, Map.of("Idempotency-Key", key)));
    } catch (IOException e) {
      errors.increment();
    }
  }

  /** Classifies one answer; package-private so the rules can be tested on their own. */
  void record(HttpCall.Answer answer) {
    if (answer.replayed()) {
      replayed.increment();
    } else if (answer.status() == 201) {
      createdAnswers.increment();
    } else if (answer.status() == 409 && answer.contentType().startsWith(PROBLEM_JSON)) {
      conflicts.increment(); // the agent: the same key is still being processed
    } else if (answer.status() == 409) {
      soldOut.increment(); // the application: not enough stock
    } else {
      errors.increment();
    }
  }

  /** Checks the outcome in Redis. Call after every request has been answered. */
  public Summary summarize() {
    long sequenceNow = orderSequence();
    Map<String, Integer> ordersPerKey = new HashMap<>();
    long unitsOrdered = 0;
    long missingOrders = 0;
    for (long from = sequenceAtStart + 1; from <= sequenceNow; from += 1_000) {
      long to = Math.min(sequenceNow, from + 999);
      List<Response<List<String>>> fields = new ArrayList<>();
      try (Pipeline pipeline = observer.pipelined()) {
        for (long id = from; id <= to; id++) {
          fields.add(
              pipeline.hmget(FlashSale.orderKey(id), FlashSale.IDEMPOTENCY_KEY_FIELD, "quantity"));
        }
        pipeline.sync();
      }
      for (Response<List<String>> order : fields) {
        String key = order.get().get(0);
        String quantity = order.get().get(1);
        if (key == null || quantity == null) {
          missingOrders++;
          continue;
        }
        unitsOrdered += Long.parseLong(quantity);
        if (!key.isEmpty()) {
          ordersPerKey.merge(key, 1, Integer::sum);
        }
      }
    }
    long duplicateOrders = 0;
    long keysWithDuplicates = 0;
    for (int count : ordersPerKey.values()) {
      if (count > 1) {
        keysWithDuplicates++;
        duplicateOrders += count - 1;
      }
    }
    return new Summary(
        requests.sum(),
        retries.sum(),
        createdAnswers.sum(),
        replayed.sum(),
        conflicts.sum(),
        soldOut.sum(),
        errors.sum(),
        sequenceNow - sequenceAtStart,
        missingOrders,
        duplicateOrders,
        keysWithDuplicates,
        unitsOrdered,
        stockAtStart,
        stockLeft());
  }

  private long orderSequence() {
    Response<String> sequence;
    try (Pipeline pipeline = observer.pipelined()) {
      sequence = pipeline.get(FlashSale.ORDER_SEQUENCE_KEY);
      pipeline.sync();
    }
    return sequence.get() == null ? 0 : Long.parseLong(sequence.get());
  }

  /**
   * Pipelined, like every read here: the observer must see what Redis holds, never a locally served
   * copy.
   */
  private long stockLeft() {
    List<Response<String>> stocks = new ArrayList<>();
    try (Pipeline pipeline = observer.pipelined()) {
      for (int i = 0; i < settings.products(); i++) {
        stocks.add(pipeline.get(FlashSale.stockKey(settings.firstProductId() + i)));
      }
      pipeline.sync();
    }
    long total = 0;
    for (Response<String> stock : stocks) {
      total += stock.get() == null ? 0 : Long.parseLong(stock.get());
    }
    return total;
  }

  @Override
  public void close() {
    twins.shutdownNow();
    observer.close();
  }

  /**
   * The end-of-run account. From the HTTP answers: requests, retries,
   * created/replayed/conflict/sold-out/error answers. From Redis: orders created (the sequence's
   * growth), orders per Idempotency-Key, units in orders and stock left.
   */
  public record Summary(
      long requests,
      long retries,
      long createdAnswers,
      long replayed,
      long conflicts,
      long soldOut,
      long errors,
      long ordersCreated,
      long missingOrders,
      long duplicateOrders,
      long keysWithDuplicates,
      long unitsOrdered,
      long stockAtStart,
      long stockLeft) {

    /** Retries the application never saw: answered by the agent from the first request's record. */
    public long duplicatesPrevented() {
      return replayed + conflicts;
    }

    public boolean noOrderCreatedTwice() {
      return duplicateOrders == 0;
    }

    /**
     * Every unit that left the stock is in exactly one recorded order, and the stock never went
     * negative.
     */
    public boolean stockAccountedFor() {
      return stockLeft >= 0 && missingOrders == 0 && stockAtStart - stockLeft == unitsOrdered;
    }

    public String line() {
      StringBuilder line = new StringBuilder();
      line.append(
          String.format(
              "orders created %,d (requests %,d incl. %,d retries: %,d replayed, %,d conflicts",
              ordersCreated, requests, retries, replayed, conflicts));
      if (soldOut > 0) {
        line.append(String.format(", %,d sold out", soldOut));
      }
      if (errors > 0) {
        line.append(String.format(", %,d errors", errors));
      }
      line.append(String.format(") — duplicates prevented: %,d", duplicatesPrevented()));
      if (duplicateOrders > 0) {
        line.append(String.format(" — duplicates created: %,d", duplicateOrders));
      }
      line.append(
          String.format(
              " — stock left %,d of %,d%s",
              stockLeft,
              stockAtStart,
              stockAccountedFor()
                  ? ""
                  : " (DOES NOT MATCH the " + unitsOrdered + " units in orders)"));
      line.append(" — no order created twice: ")
          .append(
              noOrderCreatedTwice()
                  ? "OK"
                  : String.format(
                      "FAILED (%,d keys created %,d extra orders)",
                      keysWithDuplicates, duplicateOrders));
      return line.toString();
    }
  }
}
