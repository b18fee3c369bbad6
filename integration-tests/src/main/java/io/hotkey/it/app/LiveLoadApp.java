package io.hotkey.it.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hotkey.it.app.results.LiveLoadResults;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The live-operations tests' child: a service that reads Redis keys through a pooled client at
 * rates the test sets and changes while it runs, so that the agent's endpoint, page and {@code
 * status} have a key to show and a rate that moves. It knows nothing of the agent. Reads through a
 * pooled Jedis client ({@code UnifiedJedis}, Jedis 4+), or with {@code --client lettuce} through
 * one Lettuce connection's sync API.
 *
 * <ul>
 *   <li>{@code GET /load?key=K&rate=N}: sets {@code K} to a known value, then reads it N times a
 *       second (0 stops); every read is checked against that value.
 *   <li>{@code GET /write?key=K&rate=N}: writes {@code K}'s known value N times a second (0 stops),
 *       so that a key can be hot by its writes.
 *   <li>{@code GET /stats}: its {@link LiveLoadResults}, as {@code RESULT} lines ({@code failed}:
 *       ticks cut short by a failed call, e.g. Redis stalled past the client's timeout).
 * </ul>
 *
 * Prints {@code PORT n} once its control server listens on 127.0.0.1. {@code --exit-after-millis N}
 * instead reads {@code --key} at {@code --rate} for N ms, prints its stats and returns from main.
 */
public final class LiveLoadApp {
  private static final long TICK_MILLIS = 10;

  /** The two calls the app makes, on the client it was started with. */
  static final class KeyValues {
    private final Function<String, String> get;
    private final BiConsumer<String, String> set;

    KeyValues(Function<String, String> get, BiConsumer<String, String> set) {
      this.get = get;
      this.set = set;
    }

    String get(String key) {
      return get.apply(key);
    }

    void set(String key, String value) {
      set.accept(key, value);
    }
  }

  private final KeyValues redis;
  private final Map<String, Long> ratePerSecond = new ConcurrentHashMap<>();
  private final Map<String, Long> writesPerSecond = new ConcurrentHashMap<>();
  private final Map<String, Double> owed = new HashMap<>();
  private final Map<String, Double> owedWrites = new HashMap<>();
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong wrong = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private LiveLoadApp(KeyValues redis) {
    this.redis = redis;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = Child.parseArgs(args);
    String[] hostPort = options.get("redis").split(":");
    String host = hostPort[0];
    int port = Integer.parseInt(hostPort[1]);
    LiveLoadApp app =
        new LiveLoadApp(
            "lettuce".equals(options.get("client"))
                ? LettuceGets.keyValues(host, port)
                : PooledReads.keyValues(host, port));
    Thread load = new Thread(app::readForever, "load");
    load.setDaemon(true);
    if (options.containsKey("exit-after-millis")) {
      app.setRate(options.get("key"), Long.parseLong(options.get("rate")));
      load.start();
      Thread.sleep(Long.parseLong(options.get("exit-after-millis")));
      System.out.print(app.stats());
      return;
    }
    HttpServer control =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    control.createContext("/load", app::load);
    control.createContext("/write", app::write);
    control.createContext("/stats", exchange -> answer(exchange, app.stats()));
    control.start();
    load.start();
    System.out.println("PORT " + control.getAddress().getPort());
    System.out.flush();
  }

  private void load(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    setRate(query.get("key"), Long.parseLong(query.get("rate")));
    answer(exchange, "ok\n");
  }

  private void write(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    long rate = Long.parseLong(query.get("rate"));
    if (rate <= 0) {
      writesPerSecond.remove(query.get("key"));
    } else {
      writesPerSecond.put(query.get("key"), rate);
    }
    answer(exchange, "ok\n");
  }

  private void setRate(String key, long rate) {
    if (rate <= 0) {
      ratePerSecond.remove(key);
      return;
    }
    redis.set(key, expected(key));
    ratePerSecond.put(key, rate);
  }

  private String stats() {
    return Child.resultLine(LiveLoadResults.READS, reads.get())
        + "\n"
        + Child.resultLine(LiveLoadResults.WRONG, wrong.get())
        + "\n"
        + Child.resultLine(LiveLoadResults.FAILED, failed.get())
        + "\n";
  }

  private static String expected(String key) {
    return "value of " + key;
  }

  /** Every tick, each key's reads owed at its rate; a slow tick catches up on the next. */
  private void readForever() {
    long last = System.nanoTime();
    while (true) {
      try {
        Thread.sleep(TICK_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      double seconds = (now - last) / 1e9;
      last = now;
      try {
        runDue(seconds);
      } catch (RuntimeException e) {
        // Redis stalled past the client's timeout: counted, and the load goes on
        failed.incrementAndGet();
      }
    }
  }

  /** The writes and reads due for {@code seconds} more of every key's rate. */
  private void runDue(double seconds) {
    for (Map.Entry<String, Long> entry : writesPerSecond.entrySet()) {
      String key = entry.getKey();
      for (long i = due(owedWrites, key, entry.getValue() * seconds); i > 0; i--) {
        redis.set(key, expected(key));
      }
    }
    for (Map.Entry<String, Long> entry : ratePerSecond.entrySet()) {
      String key = entry.getKey();
      for (long i = due(owed, key, entry.getValue() * seconds); i > 0; i--) {
        String value = redis.get(key);
        reads.incrementAndGet();
        if (!expected(key).equals(value)) {
          wrong.incrementAndGet();
        }
      }
    }
  }

  /** Whole operations due now for {@code key}; the fraction is owed to the next tick. */
  private static long due(Map<String, Double> owedByKey, String key, double more) {
    double due = owedByKey.getOrDefault(key, 0.0) + more;
    long count = (long) due;
    owedByKey.put(key, due - count);
    return count;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> parameters = new HashMap<>();
    for (String pair : raw == null ? new String[0] : raw.split("&")) {
      int eq = pair.indexOf('=');
      parameters.put(
          URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return parameters;
  }

  private static void answer(HttpExchange exchange, String text) throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
