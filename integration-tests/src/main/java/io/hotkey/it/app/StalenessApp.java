package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.StalenessResults;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * How stale the agent's local answers get when another process writes a hot key: a writer that goes
 * around the agent (a raw socket, which no hook sees, exactly like another instance) SETs the key
 * to step numbers every {@code --write-every-ms} and records when each SET was acknowledged; reader
 * threads GET it through the client with the agent. A read that started at {@code s} and returned
 * step {@code j} is stale by {@code s - ack(j + 1)} when step {@code j + 1} was acknowledged before
 * {@code s}. Optional mid-run events: {@code --kill-at-step N} kills the agent's own connections
 * ({@code CLIENT KILL} of every client named {@code hotkey-agent}), {@code --flush-at-step N} makes
 * step N a FLUSHALL (a nil read is then step N). Reports the staleness percentiles, reads, local
 * hits, the agent's tracking state and the users its own connections are logged in as. Usage:
 * {@code --client jedis|lettuce --redis host:port --key k --steps n}. For a Lettuce application
 * configured as users configure it: {@code --uri} a Lettuce URI the readers connect with instead
 * (credentials, {@code rediss://}, verify mode), {@code --truststore} a PEM file their TLS trusts,
 * {@code --cluster true} through a {@code RedisClusterClient}; {@code --auth user:password} (empty
 * user: the default user) logs in the writer and the admin connection at {@code --redis}; {@code
 * --rotate-password user:password} changes a user's password on the server once the readers are
 * connected (open connections stay logged in, new ones need the new password).
 */
public final class StalenessApp {
  private static final int READERS = 2;
  private static final int HISTOGRAM_BUCKETS = 100_000;

  private StalenessApp() {}

  public static void main(String[] args) {
    Map<String, String> a = Child.parseArgs(args);
    String[] hp = a.get("redis").split(":");
    String host = hp[0];
    int port = Integer.parseInt(hp[1]);
    String key = a.get("key");
    int steps = Integer.parseInt(a.getOrDefault("steps", "1000"));
    long writeEveryMs = Long.parseLong(a.getOrDefault("write-every-ms", "5"));
    int killAt = Integer.parseInt(a.getOrDefault("kill-at-step", "-1"));
    int flushAt = Integer.parseInt(a.getOrDefault("flush-at-step", "-1"));
    String client = a.get("client");
    String uri = a.get("uri");
    Child.runAndExit(
        () -> {
          List<Supplier<String>> readers = new ArrayList<>();
          List<AutoCloseable> closeables = new ArrayList<>();
          for (int r = 0; r < READERS; r++) {
            readers.add(
                uri != null
                    ? LettuceGets.open(
                        uri,
                        a.get("truststore"),
                        Boolean.parseBoolean(a.get("cluster")),
                        key,
                        closeables)
                    : "lettuce".equals(client)
                        ? LettuceGets.open(host, port, key, closeables)
                        : JedisGets.open(host, port, key, closeables));
          }
          try (RawRedis writer = new RawRedis(host, port);
              RawRedis admin = new RawRedis(host, port)) {
            logIn(writer, a.get("auth"));
            logIn(admin, a.get("auth"));
            if (a.containsKey("rotate-password")) {
              String[] user = a.get("rotate-password").split(":", 2);
              admin.call("ACL", "SETUSER", user[0], "resetpass", ">" + user[1]);
            }
            writer.call("SET", key, "0");
            warmUp(readers.get(0), key);
            run(readers, writer, admin, key, steps, writeEveryMs, killAt, flushAt);
            result(StalenessResults.AGENT_USERS, agentUsers(admin));
          } finally {
            for (AutoCloseable c : closeables) {
              c.close();
            }
          }
        },
        true);
  }

  /** {@code AUTH} as {@code userAndPassword} ({@code user:password}, or {@code :password}). */
  private static void logIn(RawRedis connection, String userAndPassword) {
    if (userAndPassword == null) {
      return;
    }
    String[] login = userAndPassword.split(":", 2);
    Object reply =
        login[0].isEmpty()
            ? connection.call("AUTH", login[1])
            : connection.call("AUTH", login[0], login[1]);
    if (!"OK".equals(reply)) {
      throw new IllegalStateException("AUTH answered " + reply);
    }
  }

  /**
   * The users the agent's own connections ({@code name=hotkey-agent}) are logged in as, each once,
   * sorted.
   */
  private static List<String> agentUsers(RawRedis admin) {
    Set<String> users = new TreeSet<>();
    for (String line : String.valueOf(admin.call("CLIENT", "LIST")).split("\n")) {
      if (line.contains(" name=hotkey-agent ")) {
        users.add(line.replaceFirst("^.* user=(\\S+).*$", "$1").trim());
      }
    }
    return List.copyOf(users);
  }

  /** Reads until the agent serves the key locally. */
  private static void warmUp(Supplier<String> reader, String key) {
    long end = System.nanoTime() + 20_000_000_000L;
    long hitsBefore = -1;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 200; i++) {
        Object unused = reader.get();
      }
      if (Child.allHot(List.of(key))) {
        long hits = hits();
        if (hitsBefore >= 0 && hits - hitsBefore > 100) {
          result(StalenessResults.SERVED_AFTER_WARMUP, true);
          return;
        }
        hitsBefore = hits;
      }
    }
    result(StalenessResults.SERVED_AFTER_WARMUP, false);
  }

  private static void run(
      List<Supplier<String>> readers,
      RawRedis writer,
      RawRedis admin,
      String key,
      int steps,
      long writeEveryMs,
      int killAt,
      int flushAt)
      throws InterruptedException {
    AtomicLongArray acked = new AtomicLongArray(steps + 2);
    acked.set(0, System.nanoTime());
    AtomicLong current = new AtomicLong();
    List<long[]> stalenessPerReader = new ArrayList<>();
    long[] maxPerReader = new long[readers.size()];
    long[] reads = new long[readers.size()];
    long[] wrong = new long[readers.size()];
    List<Thread> threads = new ArrayList<>();
    long hitsBefore = hits();
    for (int r = 0; r < readers.size(); r++) {
      int index = r;
      // every read counts, in 10 µs buckets up to 1 s (the last bucket holds anything longer)
      long[] histogram = new long[HISTOGRAM_BUCKETS];
      stalenessPerReader.add(histogram);
      Thread t =
          new Thread(
              () -> {
                long n = 0;
                while (current.get() <= steps) {
                  long start = System.nanoTime();
                  String value = readers.get(index).get();
                  int step = value == null ? flushAt : Integer.parseInt(value);
                  if (step < 0 || step > steps) {
                    wrong[index]++;
                    continue;
                  }
                  long newer = step + 1 <= steps ? acked.get(step + 1) : 0;
                  long stale = newer != 0 && newer - start < 0 ? start - newer : 0;
                  histogram[(int) Math.min(HISTOGRAM_BUCKETS - 1, stale / 10_000)]++;
                  maxPerReader[index] = Math.max(maxPerReader[index], stale);
                  n++;
                }
                reads[index] = n;
              },
              "reader-" + r);
      threads.add(t);
      t.start();
    }
    long killedAt = 0;
    for (int step = 1; step <= steps; step++) {
      Thread.sleep(writeEveryMs);
      if (step == flushAt) {
        writer.call("FLUSHALL");
      } else {
        writer.call("SET", key, Integer.toString(step));
      }
      acked.set(step, System.nanoTime());
      current.set(step);
      if (step == killAt) {
        result(StalenessResults.KILLED, killAgentConnections(admin));
        killedAt = System.nanoTime();
      }
    }
    current.set(steps + 1);
    for (Thread t : threads) {
      t.join();
    }
    long[] all = new long[HISTOGRAM_BUCKETS];
    long total = 0;
    long max = 0;
    for (int r = 0; r < readers.size(); r++) {
      for (int b = 0; b < HISTOGRAM_BUCKETS; b++) {
        all[b] += stalenessPerReader.get(r)[b];
      }
      total += reads[r];
      max = Math.max(max, maxPerReader[r]);
    }
    result(StalenessResults.READS, total);
    result(StalenessResults.WRONG_VALUES, wrong[0] + wrong[1]);
    result(StalenessResults.HITS, hits() - hitsBefore);
    result(StalenessResults.P50_US, percentileUs(all, total, 0.50));
    result(StalenessResults.P99_US, percentileUs(all, total, 0.99));
    result(StalenessResults.MAX_US, total == 0 ? -1 : max / 1000);
    if (killedAt != 0) {
      result(StalenessResults.RETRACKED_AFTER_MS, waitForTracking(killedAt));
    }
    result(StalenessResults.TRACKING_SERVERS, Child.jmxTexts("TrackingServers"));
  }

  /** Milliseconds from the kill until every tracked server is tracked again, or -1 after 20 s. */
  private static long waitForTracking(long killedAt) throws InterruptedException {
    while (System.nanoTime() - killedAt < 20_000_000_000L) {
      Object servers = Child.jmx("TrackingServers");
      if (servers instanceof String[] array
          && array.length > 0
          && Arrays.stream(array).allMatch(s -> s.contains(" tracking"))) {
        return (System.nanoTime() - killedAt) / 1_000_000;
      }
      Thread.sleep(5);
    }
    return -1;
  }

  private static long killAgentConnections(RawRedis admin) {
    long killed = 0;
    for (String line : String.valueOf(admin.call("CLIENT", "LIST")).split("\n")) {
      if (line.contains(" name=hotkey-agent ")) {
        String id = line.replaceFirst("^id=(\\d+) .*$", "$1").trim();
        Object reply = admin.call("CLIENT", "KILL", "ID", id);
        killed += reply instanceof Long l ? l : 0;
      }
    }
    return killed;
  }

  private static long hits() {
    Object v = Child.jmx("CacheHits");
    return v instanceof Long l ? l : -1;
  }

  /** The upper edge of the percentile's bucket in µs (0 for under 10 µs); -1 without reads. */
  private static long percentileUs(long[] histogram, long total, double p) {
    if (total == 0) {
      return -1;
    }
    long rank = (long) Math.ceil(p * total);
    long seen = 0;
    for (int b = 0; b < histogram.length; b++) {
      seen += histogram[b];
      if (seen >= rank) {
        return b == 0 ? 0 : (b + 1) * 10L;
      }
    }
    return histogram.length * 10L;
  }
}
