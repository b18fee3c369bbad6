package io.hotkey.demo.bench;

import io.hotkey.agent.fleet.FleetAggregate;
import io.hotkey.agent.fleet.FleetExchange;
import io.hotkey.agent.fleet.FleetShards;
import io.hotkey.agent.fleet.KeyCount;
import io.hotkey.agent.redis.resp.RespClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What fleet detection costs Redis as the fleet grows: N simulated instances, each running the
 * agent's own exchange code ({@link FleetExchange} over {@link FleetShards} and {@link
 * FleetAggregate}) once per window at its own point of the window, against real Redis servers it
 * starts (one standalone server, or a 3-master Cluster). Each instance's key counts are drawn from
 * a Zipf distribution over a key universe, with its own noise per key and window; on top of them a
 * flash key starts at a known window at twice the fleet threshold spread over every instance, and a
 * cold key is read by every instance at half the threshold in sum. Per N it prints each node's
 * Redis CPU per window ({@code INFO cpu}: the mean, and the median and costliest single window, the
 * costliest being the flash key's, when every instance reads once), script calls and every
 * command's calls and time ({@code INFO commandstats}), the keys an instance reported, the
 * detection delay of the flash key, the false promotions (keys read back as fleet-hot whose real
 * sum never reached the threshold in any window) and whether the cold key was ever read back.
 *
 * <p>Instances are stepped in turn by a few threads ({@code --threads}), each at its own point of
 * every window, sharing one connection per thread, not a JVM and a connection each: Redis does the
 * same work per call, minus the cost of holding N connections.
 *
 * <pre>
 * java -cp demo-app/target/hotkey-demo.jar:agent/target/hotkey-agent.jar \
 *   io.hotkey.demo.bench.FleetSimulator --deployment cluster --instances 10,100,1000,10000
 * </pre>
 *
 * Options, with their defaults: {@code --deployment standalone|cluster (standalone) --instances
 * 10,100,1000,10000 --window-ms 1000 --windows 8 (measured, after 3 to settle) --threshold 20000
 * (accesses/s over the fleet) --rate 200 (accesses/s per instance) --universe 5000 --zipf 1.0
 * --threads 16 --settle 3 (windows before the measurement) --redis-server /usr/bin/redis-server}.
 */
public final class FleetSimulator {
  private static final byte[] FLASH = bytes("flash");
  private static final byte[] COLD = bytes("cold");

  /** Ranks whose real fleet sums are tracked: the rest are far below any threshold simulated. */
  private static final int TRACKED_RANKS = 400;

  private final Options options;

  FleetSimulator(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    BenchArgs a =
        BenchArgs.parse(
            args,
            "--deployment",
            "--instances",
            "--window-ms",
            "--windows",
            "--threshold",
            "--rate",
            "--universe",
            "--zipf",
            "--threads",
            "--settle",
            "--redis-server");
    Options options = new Options();
    options.cluster = a.text("--deployment").orElse("standalone").equals("cluster");
    options.windowMillis = a.wholeNumber("--window-ms", 1000, 100);
    options.windows = a.wholeNumber("--windows", 8, 1);
    options.settleWindows = a.wholeNumber("--settle", 3, 3);
    options.threshold = a.wholeNumber("--threshold", 20_000, 1);
    options.rate = a.wholeNumber("--rate", 200, 1);
    options.universe = a.wholeNumber("--universe", 5_000, TRACKED_RANKS);
    options.zipf = Double.parseDouble(a.text("--zipf").orElse("1.0"));
    options.threads = a.wholeNumber("--threads", 16, 1);
    options.redisServer = a.text("--redis-server").orElse("/usr/bin/redis-server");
    List<Integer> fleets = new ArrayList<>();
    for (String n : a.text("--instances").orElse("10,100,1000,10000").split(",")) {
      fleets.add(Integer.parseInt(n.trim()));
    }
    System.out.println(
        "deployment="
            + (options.cluster ? "cluster(3 masters)" : "standalone")
            + " window="
            + options.windowMillis
            + "ms threshold="
            + options.threshold
            + "/s rate="
            + options.rate
            + "/s per instance, Zipf("
            + options.zipf
            + ") over "
            + options.universe
            + " keys");
    System.out.println(Row.HEADER);
    try (SimulatedRedis redis = SimulatedRedis.start(options.cluster, options.redisServer)) {
      for (int instances : fleets) {
        for (Row row : new FleetSimulator(options).run(redis, instances)) {
          System.out.println(row);
        }
      }
    }
  }

  /** The simulator's settings. */
  static final class Options {
    boolean cluster;
    int windowMillis = 1000;
    int windows = 8;

    /** Windows before the measurement: a large fleet's first exchanges all run the script. */
    int settleWindows = 3;

    long threshold = 20_000;
    long rate = 200;
    int universe = 5_000;
    double zipf = 1.0;
    int threads = 16;
    String redisServer = "/usr/bin/redis-server";
  }

  /** One node's figures for one fleet size. */
  static final class Row {
    static final String HEADER =
        String.format(
            Locale.ROOT,
            "%9s %-16s %12s %7s %17s %10s %9s %9s %13s %9s %10s %13s %6s %10s %5s",
            "instances",
            "node",
            "cpu ms/win",
            "%core",
            "win median(max)",
            "calls/win",
            "us/call",
            "gets/win",
            "reads/win(max)",
            "made/due",
            "keys/inst",
            "delay max win",
            "false",
            "false from",
            "cold");

    int instances;
    String node;
    double cpuMillisPerWindow;

    /** Redis CPU in the median window and in the costliest one (the flash key's, usually). */
    double cpuMillisMedian;

    double cpuMillisMax;
    double callsPerWindow;
    double microsPerCall;
    double readsPerWindow;

    /** Exchanges of instances not drawn that read the hot lists, per window: mean and most. */
    double readerReadsPerWindow;

    long readerReadsMax;
    double exchangesMadePerDue;
    double keysPerInstance;
    double detectionWindowsMax;
    long instancesThatDetected;
    long falsePromotions;

    /** The lowest real sum (highest window, share of the threshold) of a key falsely promoted. */
    double falseLowestShare;

    boolean coldPromoted;
    long windowMillis;

    /** Per command: calls per window and microseconds per call inside Redis. */
    String commandsPerWindow = "";

    @Override
    public String toString() {
      return String.format(
              Locale.ROOT,
              "%9d %-16s %12.1f %6.2f%% %17s %10.0f %9.1f %9.0f %13s %8.0f%% %10.1f %13s %6d %10s %5s",
              instances,
              node,
              cpuMillisPerWindow,
              100 * cpuMillisPerWindow / windowMillis,
              String.format(Locale.ROOT, "%.1f(%.1f)", cpuMillisMedian, cpuMillisMax),
              callsPerWindow,
              microsPerCall,
              readsPerWindow,
              String.format(Locale.ROOT, "%.0f(%d)", readerReadsPerWindow, readerReadsMax),
              100 * exchangesMadePerDue,
              keysPerInstance,
              instancesThatDetected < instances
                  ? "missed " + (instances - instancesThatDetected)
                  : String.format(Locale.ROOT, "%.2f", detectionWindowsMax),
              falsePromotions,
              falsePromotions == 0 ? "-" : String.format(Locale.ROOT, "%.3fT", falseLowestShare),
              coldPromoted ? "HOT" : "cold")
          + "\n          per window: "
          + commandsPerWindow;
    }
  }

  /** Runs {@code instances} simulated instances; one row per node. */
  List<Row> run(SimulatedRedis redis, int instances) throws Exception {
    String namespace = "sim" + instances + "-" + System.nanoTime() + ":";
    long windowMillis = options.windowMillis;
    FleetAggregate aggregate =
        new FleetAggregate(
            Duration.ofMillis(windowMillis), options.threshold, FleetExchange.MAX_KEYS);
    // long enough that a host too loaded to answer in a window never marks Redis down
    int timeout = (int) Math.max(10_000, 10 * windowMillis);
    double[] zipf = zipfShares(options.universe, options.zipf);
    Fleet fleet = new Fleet(instances, zipf);
    try (RespClient client =
        new RespClient(redis.seed(), timeout, timeout, options.threads, 1_000)) {
      FleetShards shards = FleetShards.of(client, namespace);
      long now = redisMillis(client);
      long firstWindow = now / windowMillis + 1;
      fleet.measuredFrom = firstWindow + options.settleWindows;
      fleet.flashFrom = fleet.measuredFrom + 1;
      fleet.measuredUntil = fleet.measuredFrom + options.windows;
      long startNanos = System.nanoTime();
      List<List<Instance>> slices = new ArrayList<>();
      for (int t = 0; t < options.threads; t++) {
        slices.add(new ArrayList<>());
      }
      for (int i = 0; i < instances; i++) {
        long phase =
            windowMillis / 20 + ThreadLocalRandom.current().nextLong(windowMillis * 9 / 20);
        slices
            .get(i % options.threads)
            .add(new Instance(i, phase, fleet, new FleetExchange(client, shards), aggregate));
      }
      List<Thread> threads = new ArrayList<>();
      for (List<Instance> slice : slices) {
        slice.sort(Comparator.comparingLong(instance -> instance.phaseMillis));
        Thread thread =
            new Thread(() -> stepInTurn(slice, fleet, firstWindow, now, startNanos), "instances");
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
      try {
        sleepUntil(client, fleet.measuredFrom * windowMillis);
        List<NodeStats> before = redis.stats();
        fleet.measuring = true;
        // each window's CPU on its own: the flash key's window, when every instance reads, apart
        List<List<Double>> cpuByWindow = new ArrayList<>();
        List<NodeStats> after = before;
        for (long window = fleet.measuredFrom + 1; window <= fleet.measuredUntil; window++) {
          sleepUntil(client, window * windowMillis);
          List<NodeStats> then = redis.stats();
          List<Double> cpu = new ArrayList<>();
          for (int node = 0; node < then.size(); node++) {
            cpu.add(then.get(node).cpuMillis - after.get(node).cpuMillis);
          }
          cpuByWindow.add(cpu);
          after = then;
        }
        fleet.measuring = false;
        // the flash key needs up to two more windows to reach the last instance
        sleepUntil(client, (fleet.measuredUntil + 1) * windowMillis + windowMillis / 2);
        fleet.stopped = true;
        List<Row> rows = new ArrayList<>();
        for (int node = 0; node < after.size(); node++) {
          Row row = new Row();
          row.instances = instances;
          row.windowMillis = windowMillis;
          row.node = after.get(node).address;
          NodeStats spent = after.get(node).minus(before.get(node));
          row.cpuMillisPerWindow = spent.cpuMillis / options.windows;
          int n = node;
          double[] windows = cpuByWindow.stream().mapToDouble(cpu -> cpu.get(n)).sorted().toArray();
          row.cpuMillisMedian = windows[windows.length / 2];
          row.cpuMillisMax = windows[windows.length - 1];
          row.callsPerWindow = (double) spent.calls / options.windows;
          row.microsPerCall = spent.calls == 0 ? 0 : spent.micros / (double) spent.calls;
          row.readsPerWindow = (double) spent.reads / options.windows;
          row.exchangesMadePerDue =
              fleet.measuredExchanges.sum() / ((double) instances * options.windows);
          row.readerReadsPerWindow =
              fleet.readerReads.values().stream().mapToLong(LongAdder::sum).sum()
                  / (double) options.windows;
          row.readerReadsMax =
              fleet.readerReads.values().stream().mapToLong(LongAdder::sum).max().orElse(0);
          row.keysPerInstance =
              fleet.reportedKeys.sum() / (double) Math.max(1, fleet.reports.sum());
          row.detectionWindowsMax = fleet.detectionMillisMax.get() / (double) windowMillis;
          row.instancesThatDetected = fleet.detected.size();
          row.falsePromotions = fleet.falsePromotions.sum();
          row.falseLowestShare = fleet.falseLowestShare.get() / 1000.0;
          row.coldPromoted = fleet.coldPromoted;
          row.commandsPerWindow = perWindow(spent.byCommand);
          rows.add(row);
        }
        return rows;
      } finally {
        fleet.stopped = true;
        for (Thread thread : threads) {
          thread.join(10_000);
        }
      }
    }
  }

  /**
   * One thread's instances, each at its own point of every window in turn: instances share a host's
   * cores, so a few threads step many of them, with no scheduler between. An instance whose point
   * of the window passed more than half a window ago, because its thread fell behind, misses that
   * window (the made/due column counts it); a thread a window behind starts over at the current
   * one.
   */
  private void stepInTurn(
      List<Instance> slice, Fleet fleet, long firstWindow, long redisMillisAt, long nanosAt) {
    long windowMillis = options.windowMillis;
    for (long window = firstWindow; !fleet.stopped; window++) {
      window =
          Math.max(
              window, (redisMillisAt + (System.nanoTime() - nanosAt) / 1_000_000) / windowMillis);
      for (Instance instance : slice) {
        long due = window * windowMillis + instance.phaseMillis;
        long wait = due - (redisMillisAt + (System.nanoTime() - nanosAt) / 1_000_000);
        if (wait < -windowMillis / 2) {
          continue;
        }
        if (wait > 0) {
          try {
            Thread.sleep(wait);
          } catch (InterruptedException e) {
            return;
          }
        }
        if (fleet.stopped) {
          return;
        }
        instance.step(window);
      }
    }
  }

  /** What every simulated instance shares: the real sums, and what the instances saw. */
  private final class Fleet {
    final int instances;
    final double[] zipf;
    final ConcurrentHashMap<Long, AtomicLongArray> realSums = new ConcurrentHashMap<>();
    final ConcurrentHashMap<Integer, Boolean> detected = new ConcurrentHashMap<>();
    final AtomicLong detectionMillisMax = new AtomicLong();
    final LongAdder falsePromotions = new LongAdder();

    /** The lowest real sum, in thousandths of the threshold, of a key falsely promoted. */
    final AtomicLong falseLowestShare = new AtomicLong(Long.MAX_VALUE);

    final LongAdder reportedKeys = new LongAdder();
    final LongAdder reports = new LongAdder();

    /** Exchanges made while the measurement ran, against one per instance and window due. */
    final LongAdder measuredExchanges = new LongAdder();

    /** Exchanges that failed (Redis too slow, or down). */
    final LongAdder failures = new LongAdder();

    /** Per window (by Redis' clock), exchanges of instances not drawn that read the hot lists. */
    final ConcurrentHashMap<Long, LongAdder> readerReads = new ConcurrentHashMap<>();

    volatile boolean measuring;
    volatile boolean coldPromoted;
    volatile boolean stopped;
    long measuredFrom;
    long measuredUntil;
    long flashFrom;

    Fleet(int instances, double[] zipf) {
      this.instances = instances;
      this.zipf = zipf;
    }

    /**
     * Rank {@code rank}'s highest real fleet sum in any window so far, as a share of the threshold.
     */
    double highestShareOfThreshold(int rank) {
      long highest = 0;
      for (AtomicLongArray sums : realSums.values()) {
        highest = Math.max(highest, sums.get(rank));
      }
      return highest * 1000.0 / (options.threshold * options.windowMillis);
    }
  }

  /** One simulated instance: its own counts and its own exchange state. */
  private final class Instance {
    final int id;
    final Fleet fleet;
    final FleetExchange exchange;
    final FleetAggregate aggregate;
    final Random random;

    /** Where in each window this instance exchanges. */
    final long phaseMillis;

    Instance(
        int id, long phaseMillis, Fleet fleet, FleetExchange exchange, FleetAggregate aggregate) {
      this.id = id;
      this.phaseMillis = phaseMillis;
      this.fleet = fleet;
      this.exchange = exchange;
      this.aggregate = aggregate;
      this.random = new Random(id * 7919L + 17);
    }

    /** One exchange, due in {@code window}; a failed one is simply not made. */
    void step(long window) {
      long windowMillis = options.windowMillis;
      try {
        // the window this exchange reports is the one just ended
        long floor =
            (long)
                Math.ceil(
                    exchange.reportFloorPerSecond(options.threshold, windowMillis)
                        * windowMillis
                        / 1000.0);
        List<KeyCount> counts = counts(window - 1, Math.max(1, floor));
        FleetExchange.Result result = exchange.exchange(aggregate, counts);
        if (fleet.measuring) {
          if (result.drawn) {
            fleet.reportedKeys.add(counts.size());
            fleet.reports.increment();
          }
          fleet.measuredExchanges.increment();
          if (result.read && !result.drawn) {
            fleet.readerReads.computeIfAbsent(result.window, w -> new LongAdder()).increment();
          }
        }
        observe(result);
      } catch (IOException | RuntimeException e) {
        fleet.failures.increment();
      }
    }

    /**
     * This instance's counts of window {@code window}, the keys at or above {@code floor}, most
     * frequent first; every count also goes into the real sums.
     */
    private List<KeyCount> counts(long window, long floor) {
      double perWindow = options.rate * options.windowMillis / 1000.0;
      AtomicLongArray sums =
          fleet.realSums.computeIfAbsent(window, w -> new AtomicLongArray(TRACKED_RANKS + 1));
      List<KeyCount> counts = new ArrayList<>();
      // past the ranks whose highest count rounds to 0 every count is 0
      for (int rank = 1;
          rank <= TRACKED_RANKS && perWindow * fleet.zipf[rank] * 1.25 >= 0.5;
          rank++) {
        long mine = Math.round(perWindow * fleet.zipf[rank] * (0.75 + 0.5 * random.nextDouble()));
        sums.addAndGet(rank, mine);
        if (mine >= floor && counts.size() < FleetExchange.MAX_KEYS) {
          counts.add(new KeyCount(bytes("item:" + rank), mine));
        }
      }
      long fleetPerWindow = options.threshold * options.windowMillis / 1000;
      if (window >= fleet.flashFrom) {
        long flash = Math.max(1, 2 * fleetPerWindow / fleet.instances);
        if (flash >= floor) {
          counts.add(new KeyCount(FLASH, flash));
        }
      }
      long cold = Math.max(1, fleetPerWindow / 2 / fleet.instances);
      if (cold >= floor) {
        counts.add(new KeyCount(COLD, cold));
      }
      counts.sort((x, y) -> Long.compare(y.count(), x.count()));
      return counts.size() > FleetExchange.MAX_KEYS
          ? counts.subList(0, FleetExchange.MAX_KEYS)
          : counts;
    }

    private void observe(FleetExchange.Result result) {
      for (KeyCount key : result.hot) {
        String name = new String(key.key(), StandardCharsets.UTF_8);
        if (name.equals("flash")) {
          if (fleet.detected.putIfAbsent(id, true) == null) {
            long delay =
                result.window * options.windowMillis
                    + result.offsetMillis
                    - fleet.flashFrom * options.windowMillis;
            fleet.detectionMillisMax.accumulateAndGet(delay, Math::max);
          }
        } else if (name.equals("cold")) {
          fleet.coldPromoted = true;
        } else {
          int rank = Integer.parseInt(name.substring("item:".length()));
          double share = rank > TRACKED_RANKS ? 0 : fleet.highestShareOfThreshold(rank);
          if (share < 1) {
            fleet.falsePromotions.increment();
            fleet.falseLowestShare.accumulateAndGet(Math.round(share * 1000), Math::min);
          }
        }
      }
    }
  }

  /** {@code <command> <calls per window> x <µs per call>}, most costly first. */
  private String perWindow(Map<String, long[]> byCommand) {
    List<Map.Entry<String, long[]>> commands = new ArrayList<>(byCommand.entrySet());
    commands.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, long[]> command : commands) {
      long[] spent = command.getValue();
      text.append(
          String.format(
              Locale.ROOT,
              "%s%s %.0f x %.1fus",
              text.length() == 0 ? "" : ", ",
              command.getKey(),
              spent[0] / (double) options.windows,
              spent[1] / (double) spent[0]));
    }
    return text.toString();
  }

  /** The share of each rank (1-based) in a Zipf distribution of exponent {@code s}. */
  static double[] zipfShares(int universe, double s) {
    double[] shares = new double[universe + 1];
    double sum = 0;
    for (int rank = 1; rank <= universe; rank++) {
      shares[rank] = 1 / Math.pow(rank, s);
      sum += shares[rank];
    }
    for (int rank = 1; rank <= universe; rank++) {
      shares[rank] /= sum;
    }
    return shares;
  }

  private static long redisMillis(RespClient client) throws IOException {
    List<?> time = (List<?>) client.call(bytes("TIME"));
    long seconds = Long.parseLong(new String((byte[]) time.get(0), StandardCharsets.US_ASCII));
    long micros = Long.parseLong(new String((byte[]) time.get(1), StandardCharsets.US_ASCII));
    return seconds * 1000 + micros / 1000;
  }

  private static void sleepUntil(RespClient client, long redisMillis)
      throws IOException, InterruptedException {
    long left = redisMillis - redisMillis(client);
    if (left > 0) {
      Thread.sleep(left);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** One node's CPU and script calls so far. */
  static final class NodeStats {
    final String address;
    final double cpuMillis;
    final long calls;
    final long micros;
    final long reads;

    /** Per command ({@code INFO commandstats}): its calls and microseconds. */
    final Map<String, long[]> byCommand;

    NodeStats(
        String address,
        double cpuMillis,
        long calls,
        long micros,
        long reads,
        Map<String, long[]> byCommand) {
      this.address = address;
      this.cpuMillis = cpuMillis;
      this.calls = calls;
      this.micros = micros;
      this.reads = reads;
      this.byCommand = byCommand;
    }

    NodeStats minus(NodeStats earlier) {
      Map<String, long[]> spent = new TreeMap<>();
      byCommand.forEach(
          (command, now) -> {
            long[] then = earlier.byCommand.getOrDefault(command, new long[2]);
            if (now[0] > then[0]) {
              spent.put(command, new long[] {now[0] - then[0], now[1] - then[1]});
            }
          });
      return new NodeStats(
          address,
          cpuMillis - earlier.cpuMillis,
          calls - earlier.calls,
          micros - earlier.micros,
          reads - earlier.reads,
          spent);
    }
  }
}
