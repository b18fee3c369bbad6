package io.hotkey.demo.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hotkey.demo.catalog.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import redis.clients.jedis.Jedis;

/**
 * The child JVM of {@link IdempotencyBench}: a JDK {@code HttpServer} on a free loopback port.
 *
 * <ul>
 *   <li>{@code POST /orders} reads the JSON body ({@code {"productId":7,"quantity":1}}), takes the
 *       next order number from a counter and answers {@code 201} with a JSON body of about 80 bytes
 *       and a {@code Location}. No Redis (unless asked, below) and no other I/O, on purpose: the
 *       handler costs a few microseconds, so what the agent adds stands out (a real handler would
 *       do more and the agent's share of its time would be smaller), and the {@code redis} store's
 *       scripts are the only Redis traffic of the benchmark, which lets it count them.
 *   <li>{@code GET /bench/stats} answers {@value #HANDLED}{@code =N} (times the order handler ran)
 *       and, when the agent is attached, its idempotency outcomes as {@value #OUTCOME_PREFIX}{@code
 *       name=N}, read from its MXBean {@value #AGENT_MXBEAN}. Not an idempotency route.
 * </ul>
 *
 * <p>{@code --workers N}: the server's worker threads. {@code --redis-pings N --redis URI}: the
 * order handler also sends N PINGs to that Redis, one after the other on its worker's own
 * connection: the service making the round trips the redis store makes, without the agent, so that
 * what a round trip costs inside this service can be measured. Prints {@value #LISTENING}{@code
 * port} once it serves, and stops when its stdin closes.
 */
public final class IdempotencyBenchApp {

  static final String LISTENING = "LISTENING";
  static final String ORDERS = "/orders";
  static final String STATS = "/bench/stats";
  static final String HANDLED = "handled";
  static final String OUTCOME_PREFIX = "outcome.";
  static final String AGENT_MXBEAN = "io.hotkey:type=HotkeyAgent";
  private static final Pattern PRODUCT_ID = Pattern.compile("\"productId\"\\s*:\\s*(\\d+)");
  private static final Pattern QUANTITY = Pattern.compile("\"quantity\"\\s*:\\s*(\\d+)");
  private static final int MAX_BODY_BYTES = 4_096;

  private final AtomicLong handled = new AtomicLong();
  private final int redisPings;
  private final ThreadLocal<Jedis> redis;

  private IdempotencyBenchApp(int redisPings, URI redisUri) {
    this.redisPings = redisPings;
    this.redis = ThreadLocal.withInitial(() -> new Jedis(redisUri));
  }

  public static void main(String[] args) throws Exception {
    useJmx();
    BenchArgs options = BenchArgs.parse(args, "--workers", "--redis-pings", "--redis");
    int workers = options.wholeNumber("--workers", 8, 1);
    int redisPings = options.wholeNumber("--redis-pings", 0, 0);
    URI redisUri = options.text("--redis").map(URI::create).orElse(null);
    if (redisPings > 0 && redisUri == null) {
      throw new IllegalArgumentException("--redis-pings needs --redis");
    }
    // Without TCP_NODELAY the server's separate header and body writes meet the client's delayed
    // ACK and
    // every keep-alive response waits ~40 ms. The JDK server reads this once, when first used.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            workers,
            task -> {
              Thread thread = new Thread(task, "bench-http-" + threadNumber.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    IdempotencyBenchApp app = new IdempotencyBenchApp(redisPings, redisUri);
    server.setExecutor(pool);
    server.createContext(ORDERS, app::order);
    server.createContext(STATS, app::stats);
    server.start();
    System.out.println(LISTENING + " " + server.getAddress().getPort());
    System.out.flush();
    // Serves until the parent closes our stdin (or dies).
    BufferedReader parent =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (parent.readLine() != null) {
      // nothing is said on stdin but its end
    }
    server.stop(0);
    pool.shutdownNow();
  }

  private void order(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "POST");
        Json.send(exchange, 405, Json.error("POST only"));
        return;
      }
      String body =
          new String(exchange.getRequestBody().readNBytes(MAX_BODY_BYTES), StandardCharsets.UTF_8);
      Matcher product = PRODUCT_ID.matcher(body);
      Matcher quantity = QUANTITY.matcher(body);
      if (!product.find() || !quantity.find()) {
        Json.send(exchange, 400, Json.error("productId and quantity are required"));
        return;
      }
      for (int i = 0; i < redisPings; i++) {
        redis.get().ping();
      }
      long id = handled.incrementAndGet();
      exchange.getResponseHeaders().set("Location", ORDERS + "/" + id);
      Json.send(
          exchange,
          201,
          "{\"id\":"
              + id
              + ",\"productId\":"
              + product.group(1)
              + ",\"quantity\":"
              + quantity.group(1)
              + ",\"status\":\"created\"}");
    }
  }

  private void stats(HttpExchange exchange) throws IOException {
    try (exchange) {
      StringBuilder text = new StringBuilder(HANDLED + "=" + handled.get());
      agentOutcomes()
          .forEach(
              (name, count) ->
                  text.append(' ').append(OUTCOME_PREFIX).append(name).append('=').append(count));
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /**
   * Makes the JVM's platform MBean server, as a service that reads MBeans does at its start: the
   * agent registers its MXBean only once there is one.
   */
  static void useJmx() {
    MBeanServer unused = ManagementFactory.getPlatformMBeanServer();
  }

  /**
   * The agent's {@code IdempotencyOutcomes} (an MXBean map, so a table of key/value rows); empty
   * without it.
   */
  static Map<String, Long> agentOutcomes() {
    Map<String, Long> outcomes = new TreeMap<>();
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName(AGENT_MXBEAN);
      if (server.isRegistered(name)) {
        TabularData table = (TabularData) server.getAttribute(name, "IdempotencyOutcomes");
        for (Object row : table.values()) {
          CompositeData entry = (CompositeData) row;
          outcomes.put((String) entry.get("key"), ((Number) entry.get("value")).longValue());
        }
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot read the agent's MXBean", e);
    }
    return outcomes;
  }
}
