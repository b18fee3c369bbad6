package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.FleetResults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * One instance of a fleet: reads one key at a steady {@code --rate} per second for {@code
 * --seconds}, below the agent's local threshold, and reports when the agent started answering it
 * locally, its local answers and its reads ({@link FleetResults}). With {@code --cold-key c} it
 * reads that key too, as often. The instances start reading together: each one, once connected,
 * leaves a file in {@code --ready-dir} and waits until {@code --instances} files are there, so that
 * JVMs which start at different speeds do not make the fleet's rate ramp up slowly. Usage: {@code
 * --client jedis|lettuce --redis host:port --key k [--cold-key c] --rate n --seconds s --ready-dir
 * d --instances n}.
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
          boolean lettuce = "lettuce".equals(a.get("client"));
          Supplier<String> reader =
              lettuce
                  ? LettuceGets.open(host, port, key, closeables)
                  : JedisGets.open(host, port, key, closeables);
          String coldKey = a.get("cold-key");
          Supplier<String> coldReader =
              coldKey == null
                  ? () -> null
                  : lettuce
                      ? LettuceGets.open(host, port, coldKey, closeables)
                      : JedisGets.open(host, port, coldKey, closeables);
          try {
            awaitTheFleet(Path.of(a.get("ready-dir")), Integer.parseInt(a.get("instances")));
            read(reader, coldReader, rate, seconds);
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  private static void awaitTheFleet(Path readyDir, int instances)
      throws IOException, InterruptedException {
    Files.createFile(readyDir.resolve("ready-" + ProcessHandle.current().pid()));
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (countFiles(readyDir) < instances) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the other instances were not ready within 60 s");
      }
      Thread.sleep(5);
    }
  }

  private static long countFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.count();
    }
  }

  private static void read(
      Supplier<String> reader, Supplier<String> coldReader, int rate, long seconds)
      throws InterruptedException {
    long start = System.nanoTime();
    long intervalNanos = 1_000_000_000L / rate;
    long servedAfterMs = -1;
    long reads = 0;
    long hitsBefore = hits();
    long nextCheck = start;
    long due = start;
    while (System.nanoTime() - start < seconds * 1_000_000_000L) {
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      // never catch up after a stall: a burst would make the key hot on this instance alone
      due = Math.max(due, System.nanoTime() - intervalNanos) + intervalNanos;
      Object unusedHot = reader.get();
      Object unusedCold = coldReader.get();
      reads++;
      if (servedAfterMs < 0 && System.nanoTime() - nextCheck >= 0) {
        nextCheck = System.nanoTime() + 50_000_000L;
        if (hits() > hitsBefore) {
          servedAfterMs = (System.nanoTime() - start) / 1_000_000;
        }
      }
    }
    result(FleetResults.SERVED_AFTER_MS, servedAfterMs);
    result(FleetResults.READS, reads);
    result(FleetResults.HITS, hits() - hitsBefore);
  }

  private static long hits() {
    Object v = Child.jmx("CacheHits");
    return v instanceof Long l ? l : -1;
  }
}
