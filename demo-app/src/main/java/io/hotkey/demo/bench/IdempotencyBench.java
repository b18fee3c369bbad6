package io.hotkey.demo.bench;

import io.hotkey.demo.redis.CommandStats;
import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * What the Idempotency-Key layer costs: the same HTTP service ({@link IdempotencyBenchApp}, a JDK
 * {@code HttpServer} whose {@code POST /orders} handler does a few microseconds of work; with
 * {@code --server webflux}, {@link IdempotencyBenchWebFluxApp}, the same service on Spring WebFlux
 * and Reactor Netty) run four times as separate child JVMs, side by side in one invocation against
 * one Redis:
 *
 * <ol>
 *   <li>without the agent;
 *   <li>without the agent, its handler sending two PINGs to the benchmark's Redis (with Jedis, one
 *       connection per worker): what two Redis round trips cost this service, on this machine, at
 *       this point of a request, which is what the redis store's target counts in;
 *   <li>with {@code -javaagent:}, {@code hotkey.idempotency.routes=POST /orders} and the {@code
 *       memory} store;
 *   <li>the same with the {@code redis} store on the benchmark's Redis.
 * </ol>
 *
 * <pre>
 * java -cp hotkey-demo.jar io.hotkey.demo.bench.IdempotencyBench --agent agent/target/hotkey-agent.jar
 *      [--server jdk|webflux] [--threads 8] [--warmup 5] [--seconds 20] [--rounds 4] [--retries 0]
 *      [--requests 0]</pre>
 *
 * <h2>How it measures</h2>
 *
 * <ul>
 *   <li>Redis is the one named by {@code REDIS_URL}, else an embedded {@code redis-server} started
 *       here. Only the {@code redis} store and the PINGs talk to it.
 *   <li>All four children are started first and stay up. Each is then warmed up alone for {@code
 *       --warmup} seconds under the same load as measured.
 *   <li>The {@code --seconds} of measurement per configuration are cut into {@code --rounds} equal
 *       slices, run in alternating order (no agent, PINGs, memory, redis; then redis, memory,
 *       PINGs, no agent; ...), so that a drift of the machine (other processes, thermal, JIT of
 *       this driver) falls on all alike rather than on the last one. An idle child costs little,
 *       but it is not nothing.
 *   <li>Load is closed-loop ({@link OrderLoad}): {@code --threads} client threads in this JVM, each
 *       with one kept-alive HTTP/1.1 connection, each sending its next request when it has read the
 *       previous answer. Every request carries a fresh {@code Idempotency-Key}, so with the agent
 *       each one is a real claim, handler run and complete; with {@code --retries P}, P% of
 *       requests instead resend the key and body of an order the same thread completed earlier,
 *       which the agent answers from the store (a replay).
 *   <li>Latency is per request, from writing its first byte to reading the answer's last, recorded
 *       in an HdrHistogram (3 significant digits). The load is closed-loop and the server
 *       saturated, so the percentiles include queueing at the server and on the machine's cores
 *       ({@code p50 ~ threads / throughput}); the added latency therefore reads as "what a request
 *       pays at saturation", which also contains the agent's throughput cost. Use {@code --threads
 *       1} for the added latency of a lone request on an idle server.
 *   <li>The client runs on the same machine as the server and takes its share of the cores. On a
 *       small machine the absolute numbers mostly measure the machine; the comparison is what the
 *       benchmark is for.
 *   <li>It checks that the work it measured was real: from the service's own handler counter and
 *       the agent's MXBean ({@code IdempotencyOutcomes}) read around each slice, that every fresh
 *       request was executed and stored and every retry replayed (and, without the agent, that
 *       every request ran the handler); from Redis' {@code INFO commandstats}, that the redis store
 *       ran its scripts and the others did not touch Redis; that the redis store left records
 *       behind; and, after measuring, that resending one completed order per thread is answered
 *       {@code Idempotent-Replayed: true} with the agent and not without it. A failed check is
 *       printed and makes the command exit with 1.
 * </ul>
 *
 * <p>Each child runs with the same fixed heap ({@link ChildJvm#HEAP}) and as many server worker
 * threads as there are client threads. With the agent, all of it is active (its Redis-client
 * instrumentation too, idle here since the service uses no Redis client), so the difference is what
 * attaching the agent with an idempotency route costs, not the idempotency filter in isolation.
 *
 * <p>{@code --requests N} caps the measured requests per configuration (0: no cap; rounded up to a
 * multiple of {@code --rounds}), for a quick smoke run. The agent runs with {@code
 * hotkey.idempotency.ttl=10m}, so that records left in a {@code REDIS_URL} server go away; other
 * {@code -Dhotkey.*} given to this command are passed on to both runs with the agent.
 */
public final class IdempotencyBench {

  private static final String USAGE =
      "usage: java -cp hotkey-demo.jar io.hotkey.demo.bench.IdempotencyBench"
          + " --agent path/to/hotkey-agent.jar [--server jdk|webflux] [--threads 8] [--warmup 5]"
          + " [--seconds 20] [--rounds 4] [--retries 0] [--requests 0]";
  private static final long CHILD_GRACE_SECONDS = 180;
  private static final String RECORD_PATTERN = "hotkey:idem:*";
  private static final int ROUND_TRIPS = 2_000;

  /** The memory store's acceptance bar: added median latency at one client, in µs. */
  static final double MEMORY_TARGET_MICROS = 10;

  /** The redis store's: at most this many Redis round trips plus {@link #REDIS_EXTRA_MICROS}. */
  static final int REDIS_TARGET_ROUND_TRIPS = 2;

  static final double REDIS_EXTRA_MICROS = 20;

  /** The HTTP server the service runs on. */
  enum Server {
    JDK(
        IdempotencyBenchApp.class,
        "JDK HttpServer, POST %s builds a small JSON answer (no I/O); %d worker threads"),
    WEBFLUX(
        IdempotencyBenchWebFluxApp.class,
        "Spring WebFlux on Reactor Netty, POST %s builds a small JSON answer (no I/O); %d event-loop"
            + " threads");

    private final Class<?> main;
    private final String description;

    Server(Class<?> main, String description) {
      this.main = main;
      this.description = description;
    }

    Class<?> main() {
      return main;
    }

    String describe(int workers) {
      return String.format(description, IdempotencyBenchApp.ORDERS, workers);
    }

    static Server named(String name) {
      for (Server server : values()) {
        if (server.name().equalsIgnoreCase(name)) {
          return server;
        }
      }
      throw new IllegalArgumentException("--server is jdk or webflux, not " + name);
    }
  }

  /** The ways the service runs. */
  enum Setup {
    NO_AGENT("no agent"),
    PINGS("no agent, 2 PINGs"),
    MEMORY("agent, memory store"),
    REDIS("agent, redis store");

    private final String label;

    Setup(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }

    boolean hasAgent() {
      return this == MEMORY || this == REDIS;
    }

    /** The service's own arguments for this setup. */
    List<String> appArguments(int workers, URI redis) {
      List<String> arguments = new ArrayList<>(List.of("--workers", Integer.toString(workers)));
      if (this == PINGS) {
        arguments.addAll(
            List.of(
                "--redis-pings",
                Integer.toString(REDIS_TARGET_ROUND_TRIPS),
                "--redis",
                redis.toString()));
      }
      return arguments;
    }

    /** The agent's settings for this setup; none without the agent. */
    List<String> agentProperties(URI redis) {
      if (!hasAgent()) {
        return List.of();
      }
      List<String> properties =
          new ArrayList<>(
              List.of(
                  "hotkey.idempotency.routes=POST " + IdempotencyBenchApp.ORDERS,
                  "hotkey.idempotency.ttl=10m",
                  "hotkey.idempotency.store=" + name().toLowerCase(Locale.ROOT)));
      if (this == REDIS) {
        properties.add("hotkey.idempotency.redis.uri=" + redis);
      }
      return properties;
    }
  }

  /** What to run. */
  record Settings(
      Path agent,
      Server server,
      int threads,
      int warmupSeconds,
      int seconds,
      int rounds,
      int retryPercent,
      long maxRequests) {

    Settings {
      if (server == null
          || threads < 1
          || warmupSeconds < 0
          || seconds < 1
          || rounds < 1
          || retryPercent < 0
          || retryPercent > 100
          || maxRequests < 0) {
        throw new IllegalArgumentException("bad settings: " + this);
      }
    }
  }

  /** Everything measured and counted for one setup, over all its slices. */
  static final class Result {
    final Setup setup;
    final Histogram latencyNanos = new Histogram(OrderLoad.HIGHEST_NANOS, 3);
    long requests;
    long retries;
    long replayed;
    long errors;
    String firstError;
    long elapsedNanos;

    /** Order handler runs during the measured slices, as the service counted them. */
    long handled;

    /** Deltas of the agent's idempotency outcomes during the measured slices. */
    final Map<String, Long> outcomes = new TreeMap<>();

    /** EVALSHA and EVAL calls Redis executed during the measured slices. */
    long scriptCalls;

    /** PING calls Redis executed during the measured slices. */
    long pings;

    int probes;
    int probesReplayed;
    long probeHandled;

    Result(Setup setup) {
      this.setup = setup;
    }

    double throughput() {
      return elapsedNanos == 0 ? 0 : requests / (elapsedNanos / 1e9);
    }

    double percentileMicros(double percentile) {
      return latencyNanos.getValueAtPercentile(percentile) / 1e3;
    }

    long outcome(String name) {
      return outcomes.getOrDefault(name, 0L);
    }
  }

  /** A verification of the measured runs; the benchmark fails when one does not hold. */
  record Check(String setup, String what, boolean holds) {}

  /** The results, the Redis records the redis store left, and the checks. */
  record Report(
      Map<Setup, Result> results, long redisRecords, List<Check> checks, Histogram roundTripNanos) {

    boolean allChecksHold() {
      return checks.stream().allMatch(Check::holds);
    }
  }

  private IdempotencyBench() {}

  public static void main(String[] args) throws Exception {
    Settings settings = null;
    try {
      BenchArgs options =
          BenchArgs.parse(
              args,
              "--agent",
              "--server",
              "--threads",
              "--warmup",
              "--seconds",
              "--rounds",
              "--retries",
              "--requests");
      Path agent =
          options
              .text("--agent")
              .map(Path::of)
              .orElseThrow(() -> new IllegalArgumentException("--agent is required"));
      if (!Files.isRegularFile(agent)) {
        throw new IllegalArgumentException(
            "agent jar not found: "
                + agent.toAbsolutePath()
                + " (build it first: mvn -q -DskipTests install)");
      }
      settings =
          new Settings(
              agent,
              options.text("--server").map(Server::named).orElse(Server.JDK),
              options.wholeNumber("--threads", 8, 1),
              options.wholeNumber("--warmup", 5, 0),
              options.wholeNumber("--seconds", 20, 1),
              options.wholeNumber("--rounds", 4, 1),
              options.wholeNumber("--retries", 0, 0),
              options.wholeNumber("--requests", 0, 0));
      if (settings.retryPercent() > 100) {
        throw new IllegalArgumentException("--retries is a percentage, 0 to 100");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("IdempotencyBench: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
    }
    Report report = run(settings, System.out);
    System.exit(report.allChecksHold() ? 0 : 1);
  }

  /** Runs the benchmark, prints its tables and checks to {@code out} and returns them. */
  static Report run(Settings settings, PrintStream out) throws IOException, InterruptedException {
    try (RedisEndpoint redis = RedisEndpoint.fromEnvironment();
        Jedis observer = redis.newConnection()) {
      redis.announce(observer, out);
      out.println("service: " + settings.server().describe(settings.threads()));
      out.printf(
          "load: closed loop, %d client threads, one kept-alive HTTP/1.1 connection each; every request a"
              + " fresh Idempotency-Key%s%n",
          settings.threads(),
          settings.retryPercent() == 0
              ? ""
              : ", except " + settings.retryPercent() + "% that resend a completed order's key");
      out.printf(
          "time: %d s warm-up, then %d s measured per configuration in %d alternating rounds%s%n",
          settings.warmupSeconds(),
          settings.seconds(),
          settings.rounds(),
          settings.maxRequests() == 0 ? "" : ", at most " + settings.maxRequests() + " requests");
      long recordsBefore = countRecords(observer);
      long childTimeout =
          (long) Setup.values().length * (settings.warmupSeconds() + settings.seconds())
              + CHILD_GRACE_SECONDS;
      Map<Setup, ChildJvm> children = new EnumMap<>(Setup.class);
      Map<Setup, OrderLoad> loads = new EnumMap<>(Setup.class);
      Map<Setup, Result> results = new EnumMap<>(Setup.class);
      Histogram roundTrips = new Histogram(OrderLoad.HIGHEST_NANOS, 3);
      String runId = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
      try {
        for (Setup setup : Setup.values()) {
          Optional<Path> agent =
              setup.hasAgent() ? Optional.of(settings.agent()) : Optional.empty();
          ChildJvm child =
              ChildJvm.start(
                  settings.server().main(),
                  setup.appArguments(settings.threads(), redis.uri()),
                  agent,
                  setup.agentProperties(redis.uri()),
                  childTimeout,
                  out);
          children.put(setup, child);
          String listening =
              child.awaitLine(line -> line.startsWith(IdempotencyBenchApp.LISTENING + " "));
          int port =
              Integer.parseInt(
                  listening.substring(IdempotencyBenchApp.LISTENING.length() + 1).trim());
          loads.put(setup, new OrderLoad(port, "bench-" + runId + "-" + setup.name() + "-"));
          results.put(setup, new Result(setup));
          out.printf("started: %s (port %d)%n", setup.label(), port);
        }
        double retryShare = settings.retryPercent() / 100.0;
        if (settings.warmupSeconds() > 0) {
          for (Setup setup : Setup.values()) {
            out.println("warming up: " + setup.label());
            loads
                .get(setup)
                .run(
                    settings.threads(),
                    retryShare,
                    TimeUnit.SECONDS.toNanos(settings.warmupSeconds()),
                    Long.MAX_VALUE);
          }
        }
        long sliceNanos = TimeUnit.SECONDS.toNanos(settings.seconds()) / settings.rounds();
        long sliceRequests =
            settings.maxRequests() == 0
                ? Long.MAX_VALUE
                : Math.max(1, (settings.maxRequests() + settings.rounds() - 1) / settings.rounds());
        Map<Setup, List<OrderLoad.Order>> probeOrders = new EnumMap<>(Setup.class);
        for (int round = 0; round < settings.rounds(); round++) {
          List<Setup> order = Rounds.order(List.of(Setup.values()), round);
          out.printf(
              "round %d/%d: %s%n",
              round + 1,
              settings.rounds(),
              String.join(", ", order.stream().map(Setup::label).toList()));
          for (Setup setup : order) {
            List<OrderLoad.Order> lastFresh =
                measureSlice(
                    loads.get(setup),
                    results.get(setup),
                    observer,
                    settings,
                    retryShare,
                    sliceNanos,
                    sliceRequests);
            if (!lastFresh.isEmpty()) {
              probeOrders.put(setup, lastFresh);
            }
            if (setup == Setup.REDIS) {
              measureRoundTrips(observer, roundTrips);
            }
          }
        }
        for (Setup setup : Setup.values()) {
          probe(loads.get(setup), results.get(setup), probeOrders.getOrDefault(setup, List.of()));
        }
        for (ChildJvm child : children.values()) {
          child.finish();
        }
      } finally {
        children.values().forEach(ChildJvm::close);
      }
      long redisRecords = countRecords(observer) - recordsBefore;
      Report report =
          new Report(
              results,
              redisRecords,
              IdempotencyBenchReport.checks(results, redisRecords),
              roundTrips);
      IdempotencyBenchReport.print(report, out);
      return report;
    }
  }

  /**
   * Times {@value #ROUND_TRIPS} PINGs on one connection right after a redis-store slice, for
   * reference: a round trip in a tight loop, much cheaper on a small VM than one made in the middle
   * of a request, which is what the redis store's target is stated in (the PINGs setup).
   */
  private static void measureRoundTrips(Jedis observer, Histogram into) {
    for (int i = 0; i < ROUND_TRIPS; i++) {
      long start = System.nanoTime();
      observer.ping();
      into.recordValue(Math.min(OrderLoad.HIGHEST_NANOS, System.nanoTime() - start));
    }
  }

  /** One slice of one setup, with the service's, the agent's and Redis' counters read around it. */
  private static List<OrderLoad.Order> measureSlice(
      OrderLoad load,
      Result result,
      Jedis observer,
      Settings settings,
      double retryShare,
      long sliceNanos,
      long sliceRequests)
      throws IOException, InterruptedException {
    Map<String, Long> before = serviceStats(load);
    CommandStats redisBefore = CommandStats.read(observer);
    OrderLoad.Slice slice = load.run(settings.threads(), retryShare, sliceNanos, sliceRequests);
    CommandStats redisAfter = CommandStats.read(observer);
    Map<String, Long> after = serviceStats(load);
    result.latencyNanos.add(slice.latencyNanos());
    result.requests += slice.requests();
    result.retries += slice.retries();
    result.replayed += slice.replayed();
    result.errors += slice.errors();
    if (result.firstError == null) {
      result.firstError = slice.firstError();
    }
    result.elapsedNanos += slice.elapsedNanos();
    result.handled +=
        after.getOrDefault(IdempotencyBenchApp.HANDLED, 0L)
            - before.getOrDefault(IdempotencyBenchApp.HANDLED, 0L);
    after.forEach(
        (name, count) -> {
          if (name.startsWith(IdempotencyBenchApp.OUTCOME_PREFIX)) {
            result.outcomes.merge(
                name.substring(IdempotencyBenchApp.OUTCOME_PREFIX.length()),
                count - before.getOrDefault(name, 0L),
                Long::sum);
          }
        });
    result.scriptCalls += redisAfter.callsSince(redisBefore, "evalsha", "eval");
    result.pings += redisAfter.callsSince(redisBefore, "ping");
    return slice.lastFreshOrders();
  }

  /**
   * Resends each thread's last fresh order of the last round and counts the replays and handler
   * runs.
   */
  private static void probe(OrderLoad load, Result result, List<OrderLoad.Order> orders)
      throws IOException {
    long handledBefore = serviceStats(load).getOrDefault(IdempotencyBenchApp.HANDLED, 0L);
    for (OrderLoad.Order order : orders) {
      KeepAliveConnection.Answer answer = load.resend(order);
      result.probes++;
      if (answer.status() == 201 && answer.replayed()) {
        result.probesReplayed++;
      }
    }
    result.probeHandled =
        serviceStats(load).getOrDefault(IdempotencyBenchApp.HANDLED, 0L) - handledBefore;
  }

  private static Map<String, Long> serviceStats(OrderLoad load) throws IOException {
    Map<String, Long> stats = new TreeMap<>();
    KeyValues.parse(load.stats().body())
        .forEach((name, value) -> stats.put(name, Long.parseLong(value)));
    return stats;
  }

  /** Records of the redis store in Redis now. */
  private static long countRecords(Jedis observer) {
    long records = 0;
    ScanParams match = new ScanParams().match(RECORD_PATTERN).count(1_000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = observer.scan(cursor, match);
      records += page.getResult().size();
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return records;
  }
}
