package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.StalenessResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How stale the agent's local answers get when another process writes a hot key: a writer that goes
 * around the agent (a raw socket, which no hook sees, exactly like another instance) SETs the key
 * to step numbers every {@code --write-every-ms} and records when each SET was acknowledged; reader
 * threads GET it through the client with the agent, and a {@link StalenessMeter} measures each
 * answer against those acknowledgements. Optional mid-run events: {@code --kill-at-step N} kills
 * the agent's own connections ({@code CLIENT KILL} of every client named {@code hotkey-agent}),
 * {@code --flush-at-step N} makes step N a FLUSHALL (a nil read is then step N). With {@code
 * --own-writes true} the application writes too: each odd step is set through its own client (a
 * connection of the readers' kind), and the next step follows at once from the writer around the
 * agent, whose write must not be hidden by anything the agent does about its own. Reports the
 * staleness percentiles, reads, local hits, the agent's tracking state and the users its own
 * connections are logged in as. Usage: {@code --client jedis|lettuce --redis host:port --key k
 * --steps n}. For a Lettuce application configured as users configure it: {@code --uri} a Lettuce
 * URI the readers connect with instead (credentials, {@code rediss://}, verify mode), {@code
 * --truststore} a PEM file their TLS trusts, {@code --cluster true} through a {@code
 * RedisClusterClient}; {@code --auth user:password} (empty user: the default user) logs in the
 * writer and the admin connection at {@code --redis}; {@code --rotate-password user:password}
 * changes a user's password on the server once the readers are connected (open connections stay
 * logged in, new ones need the new password). At full CPU: {@code --readers n} reader threads
 * (default 2; {@code --client jedis-pooled} shares one pooled {@code UnifiedJedis} among them), and
 * {@code --busy-threads n} (or {@code cores}) threads that only compute while the steps run.
 */
public final class StalenessApp {

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
    boolean ownWrites = Boolean.parseBoolean(a.get("own-writes"));
    int readerCount = Integer.parseInt(a.getOrDefault("readers", "2"));
    String busy = a.getOrDefault("busy-threads", "0");
    int busyThreads =
        busy.equals("cores") ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(busy);
    Child.runAndExit(
        () -> {
          List<Supplier<String>> readers = new ArrayList<>();
          List<AutoCloseable> closeables = new ArrayList<>();
          Supplier<String> pooled =
              "jedis-pooled".equals(client) ? JedisGets.pooled(host, port, key, closeables) : null;
          for (int r = 0; r < readerCount; r++) {
            readers.add(
                pooled != null
                    ? pooled
                    : uri != null
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
          Consumer<String> ownWriter =
              !ownWrites
                  ? null
                  : "lettuce".equals(client)
                      ? LettuceGets.sets(host, port, key, closeables)
                      : JedisGets.sets(host, port, key, closeables);
          try (RawRedis writer = new RawRedis(host, port);
              RawRedis admin = new RawRedis(host, port)) {
            logIn(writer, a.get("auth"));
            logIn(admin, a.get("auth"));
            if (a.containsKey("rotate-password")) {
              String[] user = a.get("rotate-password").split(":", 2);
              admin.call("ACL", "SETUSER", user[0], "resetpass", ">" + user[1]);
            }
            writer.call("SET", key, "0");
            warmUp(readers.get(0), key, Long.parseLong(a.getOrDefault("warmup-seconds", "20")));
            try (BusyThreads unused = new BusyThreads(busyThreads)) {
              run(readers, writer, ownWriter, admin, key, steps, writeEveryMs, killAt, flushAt);
            }
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

  /**
   * Reads until the agent serves the key locally, at most {@code seconds}; reports {@code
   * warmup.served}.
   */
  static void warmUp(Supplier<String> reader, String key, long seconds) {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long hitsBefore = -1;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 200; i++) {
        Object unused = reader.get();
      }
      if (Child.allHot(List.of(key))) {
        long hits = Child.counter("CacheHits");
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
      Consumer<String> ownWriter,
      RawRedis admin,
      String key,
      int steps,
      long writeEveryMs,
      int killAt,
      int flushAt)
      throws InterruptedException {
    StalenessMeter meter = new StalenessMeter(steps, flushAt);
    meter.acknowledged(0);
    long hitsBefore = Child.counter("CacheHits");
    meter.start(readers, 0);
    long killedAt = 0;
    for (int step = 1; step <= steps; step++) {
      boolean own = ownWriter != null && step % 2 == 1;
      if (ownWriter == null || own) {
        Thread.sleep(writeEveryMs);
      }
      meter.sending(step);
      if (own) {
        ownWriter.accept(Integer.toString(step));
      } else if (step == flushAt) {
        writer.call("FLUSHALL");
      } else {
        writer.call("SET", key, Integer.toString(step));
      }
      meter.acknowledged(step);
      if (step == killAt) {
        result(StalenessResults.KILLED, killAgentConnections(admin));
        killedAt = System.nanoTime();
      }
    }
    meter.stopAndReport();
    result(StalenessResults.HITS, Child.counter("CacheHits") - hitsBefore);
    if (killedAt != 0) {
      result(StalenessResults.RETRACKED_AFTER_MS, Child.millisUntilTracking(killedAt, 20_000));
    }
    result(StalenessResults.TRACKING_SERVERS, Child.jmxTexts("TrackingServers"));
    result(StalenessResults.HELD_INVALIDATIONS, Child.counter("HeldInvalidations"));
    result(StalenessResults.HELPED_INVALIDATIONS, Child.counter("HelpedInvalidations"));
  }

  /** Threads that only compute, as an application's other work keeps every core busy. */
  private static final class BusyThreads implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    BusyThreads(int count) {
      for (int i = 0; i < count; i++) {
        Thread thread = new Thread(this::compute, "busy-" + i);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
    }

    private void compute() {
      long x = 1;
      while (running.get()) {
        for (int i = 0; i < 10_000; i++) {
          x = x * 6364136223846793005L + 1442695040888963407L;
        }
      }
      if (x == 42) {
        System.out.println(x); // keeps the loop from being optimised away
      }
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread thread : threads) {
        thread.join();
      }
    }
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
}
