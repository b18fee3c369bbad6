package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One instance of a fleet: reads one key at a steady {@code --rate} per second for {@code
 * --seconds}, below the agent's local threshold, and reports when the agent started answering it
 * locally ({@code servedAfterMs}, -1 never), its local answers and its reads. Usage: {@code
 * --client jedis|lettuce --redis host:port --key k --rate n --seconds s}.
 */
public final class FleetApp {
  private FleetApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    String[] hp = a.get("redis").split(":");
    String key = a.get("key");
    int rate = Integer.parseInt(a.get("rate"));
    long seconds = Long.parseLong(a.get("seconds"));
    Child.runAndExit(
        () -> {
          List<AutoCloseable> closeables = new ArrayList<>();
          String host = hp[0];
          int port = Integer.parseInt(hp[1]);
          Supplier<String> reader =
              "lettuce".equals(a.get("client"))
                  ? LettuceGets.open(host, port, key, closeables)
                  : JedisGets.open(host, port, key, closeables);
          try {
            read(reader, rate, seconds);
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  private static void read(Supplier<String> reader, int rate, long seconds)
      throws InterruptedException {
    long start = System.nanoTime();
    long intervalNanos = 1_000_000_000L / rate;
    long servedAfterMs = -1;
    long reads = 0;
    long hitsBefore = hits();
    long nextCheck = start;
    while (System.nanoTime() - start < seconds * 1_000_000_000L) {
      long due = start + reads * intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      reader.get();
      reads++;
      if (servedAfterMs < 0 && System.nanoTime() - nextCheck >= 0) {
        nextCheck = System.nanoTime() + 50_000_000L;
        if (hits() > hitsBefore) {
          servedAfterMs = (System.nanoTime() - start) / 1_000_000;
        }
      }
    }
    result("servedAfterMs", servedAfterMs);
    result("reads", reads);
    result("hits", hits() - hitsBefore);
  }

  private static long hits() {
    Object v = Child.jmx("CacheHits");
    return v instanceof Long ? (Long) v : -1;
  }
}
