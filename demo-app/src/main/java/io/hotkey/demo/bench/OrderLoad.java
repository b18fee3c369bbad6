package io.hotkey.demo.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop order traffic on one {@link IdempotencyBenchApp}: each of N threads owns one
 * kept-alive connection and sends its next {@code POST /orders} as soon as it has read the previous
 * answer. Every request carries an {@code Idempotency-Key}: a fresh one (so with the agent every
 * request is a real claim, handler run and complete), or, for a {@code retryShare} of requests, the
 * key and body of one of the thread's own last completed orders (with the agent, a replay). A
 * request's latency is the time from writing its first byte to reading its answer's last.
 *
 * <p>One instance per server: its keys never repeat across {@link #run} calls.
 */
final class OrderLoad {

  /** What one {@link #run} measured. */
  record Slice(
      Histogram latencyNanos,
      long requests,
      long retries,
      long replayed,
      long errors,
      String firstError,
      long elapsedNanos,
      List<Order> lastFreshOrders) {}

  /** A request's key and body. */
  record Order(String key, String body) {}

  /** Latencies above this are recorded as this; far above any timeout of the connection. */
  static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final int REMEMBERED_ORDERS = 64;
  private static final int PRODUCTS = 1_000;

  private final int port;
  private final String keyPrefix;
  private final AtomicLong keySequence = new AtomicLong();

  OrderLoad(int port, String keyPrefix) {
    this.port = port;
    this.keyPrefix = keyPrefix;
  }

  /**
   * Runs {@code threads} threads until {@code durationNanos} have passed or {@code maxRequests}
   * have been sent, whichever comes first; connections are opened before the clock starts.
   */
  Slice run(int threads, double retryShare, long durationNanos, long maxRequests)
      throws IOException, InterruptedException {
    List<Worker> workers = new ArrayList<>();
    try {
      AtomicLong budget = new AtomicLong(maxRequests);
      CountDownLatch start = new CountDownLatch(1);
      AtomicLong deadline = new AtomicLong();
      for (int i = 0; i < threads; i++) {
        Worker worker =
            new Worker(new KeepAliveConnection(port), retryShare, budget, start, deadline);
        worker.setName("order-load-" + (i + 1));
        workers.add(worker);
      }
      workers.forEach(Thread::start);
      long began = System.nanoTime();
      deadline.set(began + durationNanos);
      start.countDown();
      for (Worker worker : workers) {
        worker.join();
      }
      long elapsed = System.nanoTime() - began;
      Histogram latency = new Histogram(HIGHEST_NANOS, 3);
      long requests = 0;
      long retries = 0;
      long replayed = 0;
      long errors = 0;
      String firstError = null;
      List<Order> lastFresh = new ArrayList<>();
      for (Worker worker : workers) {
        latency.add(worker.latency);
        requests += worker.requests;
        retries += worker.retries;
        replayed += worker.replayed;
        errors += worker.errors;
        if (firstError == null) {
          firstError = worker.firstError.get();
        }
        if (worker.lastFresh != null) {
          lastFresh.add(worker.lastFresh);
        }
      }
      return new Slice(
          latency, requests, retries, replayed, errors, firstError, elapsed, lastFresh);
    } finally {
      for (Worker worker : workers) {
        worker.closeConnection();
      }
    }
  }

  /** Sends {@code order} again on a new connection, as a client that lost the answer would. */
  KeepAliveConnection.Answer resend(Order order) throws IOException {
    try (KeepAliveConnection connection = new KeepAliveConnection(port)) {
      return connection.post(IdempotencyBenchApp.ORDERS, order.key(), order.body());
    }
  }

  /** The service's counters ({@code GET /bench/stats}), on a connection of their own. */
  KeepAliveConnection.Answer stats() throws IOException {
    try (KeepAliveConnection connection = new KeepAliveConnection(port)) {
      return connection.get(IdempotencyBenchApp.STATS);
    }
  }

  private Order freshOrder(SplittableRandom random) {
    String key = keyPrefix + keySequence.incrementAndGet();
    String body =
        "{\"productId\":"
            + (1 + random.nextInt(PRODUCTS))
            + ",\"quantity\":"
            + (1 + random.nextInt(3))
            + "}";
    return new Order(key, body);
  }

  private final class Worker extends Thread {

    private final double retryShare;
    private final AtomicLong budget;
    private final CountDownLatch start;
    private final AtomicLong deadline;
    private final SplittableRandom random = new SplittableRandom();
    private final Order[] completed = new Order[REMEMBERED_ORDERS];
    private final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private KeepAliveConnection connection;
    private int completedCount;
    private Order lastFresh;
    private long requests;
    private long retries;
    private long replayed;
    private long errors;

    Worker(
        KeepAliveConnection connection,
        double retryShare,
        AtomicLong budget,
        CountDownLatch start,
        AtomicLong deadline) {
      this.connection = connection;
      this.retryShare = retryShare;
      this.budget = budget;
      this.start = start;
      this.deadline = deadline;
    }

    @Override
    public void run() {
      try {
        start.await();
      } catch (InterruptedException e) {
        return;
      }
      long end = deadline.get();
      while (System.nanoTime() < end && budget.getAndDecrement() > 0) {
        boolean retry = completedCount > 0 && random.nextDouble() < retryShare;
        Order order =
            retry
                ? completed[random.nextInt(Math.min(completedCount, REMEMBERED_ORDERS))]
                : freshOrder(random);
        long sent = System.nanoTime();
        try {
          KeepAliveConnection.Answer answer =
              connection.post(IdempotencyBenchApp.ORDERS, order.key(), order.body());
          latency.recordValue(Math.min(System.nanoTime() - sent, HIGHEST_NANOS));
          requests++;
          retries += retry ? 1 : 0;
          replayed += answer.replayed() ? 1 : 0;
          if (answer.status() != 201) {
            error("HTTP " + answer.status() + ": " + answer.body());
          } else if (!retry) {
            completed[completedCount++ % REMEMBERED_ORDERS] = order;
            lastFresh = order;
          }
        } catch (IOException | RuntimeException e) {
          requests++;
          error(e.toString());
          reconnect();
        }
      }
    }

    private void error(String what) {
      errors++;
      firstError.compareAndSet(null, what);
    }

    private void reconnect() {
      closeConnection();
      try {
        connection = new KeepAliveConnection(port);
      } catch (IOException e) {
        error("reconnect: " + e);
      }
    }

    void closeConnection() {
      try {
        if (connection != null) {
          connection.close();
        }
      } catch (IOException e) {
        // closing a socket the benchmark is done with
      }
    }
  }
}
