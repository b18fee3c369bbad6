package io.hotkey.demo.bench;

import io.hotkey.demo.redis.CommandStats;
import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The benchmark behind the product's performance claims: the same workload against the same Redis,
 * in a JVM without the agent and in one with it, side by side. Redis' own counters ({@code INFO
 * commandstats}, read by this parent around each measured round) say what reached the server.
 *
 * <pre>
 * java -cp hotkey-demo.jar io.hotkey.demo.bench.CompareRuns --agent agent/target/hotkey-agent.jar
 *      --workload cold|storm|storm-reads [--client jedis|lettuce-sync|lettuce-async] [--seconds 20] [--threads 8] [--warmup 5]
 *      [--rounds 4] [--pairs 1]</pre>
 *
 * <p>{@code --client} picks the Redis client both children use (default {@code jedis}).
 *
 * <p>Both child JVMs ({@link WorkloadRun}) are started first and stay up; they warm up for {@code
 * --warmup} seconds one after the other, so that the two warm-ups do not compete for the cores. The
 * {@code --seconds} measured per side are then cut into {@code --rounds} equal rounds in
 * alternating order (without, with; then with, without; ...), one child measured at a time while
 * the other idles, so that a drift of the machine falls on both sides alike instead of on the one
 * measured second. The table sums each side's rounds (throughput is its operations over its
 * measured seconds) and a line lists the throughput of every round. Two more give the with/without
 * ratio of throughput and of CPU per operation round by round, each round against its partner in
 * the same pair of JVMs: with {@code --warmup 0}, the course of the first seconds under load.
 *
 * <p>{@code --pairs} repeats all of that with fresh JVMs, one pair after the other (the side
 * started first alternating), and the table sums the rounds of every pair. One pair of JVMs is one
 * draw of how the JIT compiled each side: on a small machine that alone moves the ratio by a few
 * percent from one pair to the next, more than the round pairs within one pair disagree, so
 * comparing builds takes several pairs, and the printed interval resamples the pairs as well as
 * their rounds.
 *
 * <p>System properties {@code -Dhotkey.*} given to this command are passed on to the run with the
 * agent.
 *
 * <p>{@code --baseline-agent name=value[,name=value...]} compares two settings of the agent
 * instead: the baseline side runs the same agent jar with those properties added (they win over the
 * {@code -Dhotkey.*} passed on), e.g. {@code --baseline-agent hotkey.cache.invalidation=ttl}
 * measures what tracking costs against TTL-only expiry, side by side in one run.
 */
public final class CompareRuns {

  private static final String USAGE =
      "usage: java -cp hotkey-demo.jar io.hotkey.demo.bench.CompareRuns"
          + " --agent path/to/hotkey-agent.jar --workload cold|storm|storm-reads [--client jedis|lettuce-sync|lettuce-async]"
          + " [--seconds 20] [--threads 8] [--warmup 5] [--rounds 4] [--pairs 1]"
          + " [--baseline-agent name=value[,name=value...]]";
  private static final long CHILD_GRACE_SECONDS = 120;

  /** The two JVMs compared: the baseline, and the agent as configured. */
  enum Side {
    WITHOUT,
    WITH
  }

  /** One child's own report and what Redis counted during its measured round(s). */
  record Measured(RunResult run, long redisGets, long redisSets) {

    /** The rounds of one side added up. */
    static Measured sum(List<Measured> rounds) {
      return rounds.stream()
          .reduce(
              (a, b) ->
                  new Measured(
                      a.run().plus(b.run()),
                      a.redisGets() + b.redisGets(),
                      a.redisSets() + b.redisSets()))
          .orElseThrow();
    }
  }

  /**
   * How long and in what shape to measure: per pair of JVMs, {@code warmup} seconds for each child,
   * then {@code seconds} per side in {@code rounds} alternating rounds; {@code pairs} such pairs in
   * turn.
   */
  record Plan(int seconds, int threads, int warmup, int rounds, int pairs) {}

  private CompareRuns() {}

  public static void main(String[] args) throws Exception {
    Path agent = null;
    Workload workload = null;
    Client client = Client.JEDIS;
    Plan plan = null;
    Baseline baseline = Baseline.NO_AGENT;
    try {
      BenchArgs options =
          BenchArgs.parse(
              args,
              "--agent",
              "--workload",
              "--client",
              "--seconds",
              "--threads",
              "--warmup",
              "--rounds",
              "--pairs",
              "--baseline-agent");
      agent = options.text("--agent").map(Path::of).orElse(null);
      workload = options.text("--workload").map(Workload::named).orElse(null);
      client = options.text("--client").map(Client::named).orElse(Client.JEDIS);
      plan =
          new Plan(
              options.wholeNumber("--seconds", 20, 1),
              options.wholeNumber("--threads", 8, 1),
              options.wholeNumber("--warmup", 5, 0),
              options.wholeNumber("--rounds", 4, 1),
              options.wholeNumber("--pairs", 1, 1));
      baseline = options.text("--baseline-agent").map(Baseline::agentWith).orElse(baseline);
      if (agent == null || workload == null) {
        throw new IllegalArgumentException("--agent and --workload are required");
      }
      if (!Files.isRegularFile(agent)) {
        throw new IllegalArgumentException(
            "agent jar not found: "
                + agent.toAbsolutePath()
                + " (build it first: mvn -q -DskipTests install)");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("CompareRuns: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
    }
    compare(agent, baseline, workload, client, plan, System.out);
  }

  /**
   * Runs the comparison, prints its table to {@code out} and returns, for each pair of JVMs in
   * turn, each side's rounds in the order run.
   */
  static List<Map<Side, List<Measured>>> compare(
      Path agent, Baseline baseline, Workload workload, Client client, Plan plan, PrintStream out)
      throws IOException, InterruptedException {
    try (RedisEndpoint redis = RedisEndpoint.fromEnvironment();
        Jedis stats = redis.newConnection()) {
      redis.announce(stats, out);
      out.printf(
          "workload %s: %s; %d client threads; %d pair(s) of JVMs in turn, each: %d s warm-up, then"
              + " %d s measured per side in %d alternating rounds%n",
          workload.cliName(),
          workload.description(),
          plan.threads(),
          plan.pairs(),
          plan.warmup(),
          plan.seconds(),
          plan.rounds());
      out.printf("client %s: %s%n", client.cliName(), client.description());
      try (RedisClient seeding = redis.newPooledClient(1)) {
        workload.seed(seeding);
      }
      out.printf("seeded %,d keys%n", workload.keys().keyCount());
      List<Map<Side, List<Measured>>> pairs = new ArrayList<>();
      for (int pair = 0; pair < plan.pairs(); pair++) {
        pairs.add(measurePair(redis, stats, agent, baseline, workload, client, plan, pair, out));
      }
      printTable(pairs, baseline, out);
      return pairs;
    }
  }

  /**
   * Starts one pair of children, the side started first alternating with {@code pair}, and measures
   * them.
   */
  private static Map<Side, List<Measured>> measurePair(
      RedisEndpoint redis,
      Jedis stats,
      Path agent,
      Baseline baseline,
      Workload workload,
      Client client,
      Plan plan,
      int pair,
      PrintStream out)
      throws IOException, InterruptedException {
    long childTimeout = 2L * (plan.warmup() + plan.seconds()) + CHILD_GRACE_SECONDS;
    Map<Side, ChildJvm> children = new EnumMap<>(Side.class);
    Map<Side, List<Measured>> measured = new EnumMap<>(Side.class);
    try {
      for (Side side : Rounds.order(List.of(Side.values()), pair)) {
        Optional<Path> javaagent = baseline.javaagent(side, agent);
        out.printf(
            "JVM pair %d/%d, starting and warming up: %s%n",
            pair + 1,
            plan.pairs(),
            baseline.agentProperties().isPresent() || javaagent.isEmpty()
                ? baseline.label(side)
                : "with -javaagent:" + agent);
        children.put(
            side,
            startChild(
                redis,
                workload,
                client,
                plan.threads(),
                plan.warmup(),
                javaagent,
                baseline.properties(side),
                childTimeout,
                out));
        measured.put(side, new ArrayList<>());
      }
      Duration round = Duration.ofSeconds(plan.seconds()).dividedBy(plan.rounds());
      for (int r = 0; r < plan.rounds(); r++) {
        List<Side> order = Rounds.order(List.of(Side.values()), r);
        out.printf(
            "round %d/%d: %s%n",
            r + 1, plan.rounds(), String.join(", ", order.stream().map(baseline::label).toList()));
        for (Side side : order) {
          measured.get(side).add(measureRound(children.get(side), stats, round));
        }
      }
      for (ChildJvm child : children.values()) {
        child.finish();
      }
    } finally {
      children.values().forEach(ChildJvm::close);
    }
    out.printf(
        "JVM pair %d/%d: throughput %s x%.3f%n",
        pair + 1, plan.pairs(), baseline.ratio(), summedRatio(measured));
    return measured;
  }

  /** Starts one child JVM and returns it once it has warmed up and idles. */
  static ChildJvm startChild(
      RedisEndpoint redis,
      Workload workload,
      Client client,
      int threads,
      int warmup,
      Optional<Path> agent,
      List<String> agentProperties,
      long timeoutSeconds,
      PrintStream out)
      throws IOException, InterruptedException {
    List<String> args =
        List.of(
            "--redis",
            redis.uri().toString(),
            "--workload",
            workload.cliName(),
            "--client",
            client.cliName(),
            "--threads",
            Integer.toString(threads),
            "--warmup",
            Integer.toString(warmup));
    ChildJvm child =
        ChildJvm.start(WorkloadRun.class, args, agent, agentProperties, timeoutSeconds, out);
    try {
      child.awaitLine(WorkloadRun.WARMED_UP::equals);
      return child;
    } catch (IOException | InterruptedException | RuntimeException e) {
      child.close();
      throw e;
    }
  }

  /** Measures one round of an idle child, with Redis' counters read around it. */
  static Measured measureRound(ChildJvm child, Jedis stats, Duration round)
      throws IOException, InterruptedException {
    CommandStats before = CommandStats.read(stats);
    child.send(WorkloadRun.go(round));
    RunResult run = RunResult.parse(child.awaitLine(RunResult::isResultLine));
    CommandStats after = CommandStats.read(stats);
    return new Measured(run, after.callsSince(before, "get"), after.callsSince(before, "set"));
  }

  private static void printTable(
      List<Map<Side, List<Measured>>> pairs, Baseline baseline, PrintStream out) {
    Measured without = Measured.sum(roundsOf(pairs, Side.WITHOUT));
    Measured with = Measured.sum(roundsOf(pairs, Side.WITH));
    int width = Math.max(13, baseline.label(Side.WITHOUT).length());
    String rowFormat = "| %-30s | %" + width + "s | %10s | %7s |%n";
    out.println();
    out.printf(rowFormat, "", baseline.label(Side.WITHOUT), "with agent", " change");
    out.printf("|%s|%s:|-----------:|--------:|%n", "-".repeat(32), "-".repeat(width + 1));
    row(
        out,
        rowFormat,
        "throughput (ops/s)",
        without.run().opsPerSecond(),
        with.run().opsPerSecond(),
        String.format("x%.2f", with.run().opsPerSecond() / without.run().opsPerSecond()));
    out.printf(
        rowFormat,
        "client JVM CPU per op (µs)",
        String.format("%.2f", without.run().cpuMicrosPerOp()),
        String.format("%.2f", with.run().cpuMicrosPerOp()),
        String.format("x%.2f", with.run().cpuMicrosPerOp() / without.run().cpuMicrosPerOp()));
    row(
        out,
        rowFormat,
        "GET calls the app made",
        (double) without.run().gets(),
        (double) with.run().gets(),
        "");
    row(
        out,
        rowFormat,
        "GET calls Redis executed",
        (double) without.redisGets(),
        (double) with.redisGets(),
        percentChange((double) without.redisGets(), (double) with.redisGets()));
    row(
        out,
        rowFormat,
        "Redis GETs per 1,000 app GETs",
        perThousand(without),
        perThousand(with),
        percentChange(perThousand(without), perThousand(with)));
    row(
        out,
        rowFormat,
        "SET calls Redis executed",
        (double) without.redisSets(),
        (double) with.redisSets(),
        "");
    row(
        out,
        rowFormat,
        "errors",
        (double) without.run().errors(),
        (double) with.run().errors(),
        "");
    List<Double> withoutRounds = opsPerSecond(roundsOf(pairs, Side.WITHOUT));
    List<Double> withRounds = opsPerSecond(roundsOf(pairs, Side.WITH));
    out.printf(
        "measured %.1f s %s and %.1f s with the agent, in %d alternating rounds in %d pair(s) of"
            + " JVMs%n",
        without.run().seconds(),
        baseline.label(Side.WITHOUT),
        with.run().seconds(),
        withoutRounds.size(),
        pairs.size());
    double[] interval =
        Rounds.summedRatioInterval(
            pairs.stream().map(pair -> opsPerSecond(pair.get(Side.WITHOUT))).toList(),
            pairs.stream().map(pair -> opsPerSecond(pair.get(Side.WITH))).toList());
    out.printf(
        "throughput %s, median of the %d round pairs: x%.3f; 95%% interval of the summed ratio"
            + " over the JVM pairs and their round pairs (bootstrap): x%.3f to x%.3f%n",
        baseline.ratio(),
        withRounds.size(),
        Rounds.medianPairedRatio(withoutRounds, withRounds),
        interval[0],
        interval[1]);
    out.printf(
        "throughput %s per pair of JVMs: %s%n",
        baseline.ratio(),
        String.join(
            " ", pairs.stream().map(pair -> String.format("x%.3f", summedRatio(pair))).toList()));
    out.printf(
        "throughput %s round by round (rounds of %.1f s; median over the %d pair(s) of JVMs, lowest"
            + " to highest): %s%n",
        baseline.ratio(),
        without.run().seconds() / withoutRounds.size(),
        pairs.size(),
        roundByRound(pairs, CompareRuns::opsPerSecond));
    out.printf(
        "client JVM CPU per op %s round by round (the same rounds): %s%n",
        baseline.ratio(), roundByRound(pairs, CompareRuns::cpuMicrosPerOp));
    for (Map<Side, List<Measured>> pair : pairs) {
      out.printf(
          "throughput per round (ops/s): %s%n",
          String.join(
              "; ",
              pair.entrySet().stream()
                  .map(
                      side ->
                          baseline.label(side.getKey())
                              + " "
                              + String.join(
                                  " ",
                                  side.getValue().stream()
                                      .map(
                                          round ->
                                              String.format("%,.0f", round.run().opsPerSecond()))
                                      .toList()))
                  .toList()));
    }
  }

  /**
   * With/without of one figure for each round index, paired within each pair of JVMs: the median
   * over the pairs and its range, round after round, so that a warm-up shows as a course.
   */
  private static String roundByRound(
      List<Map<Side, List<Measured>>> pairs, Function<List<Measured>, List<Double>> figure) {
    List<double[]> byRound =
        Rounds.ratiosByRound(
            pairs.stream().map(pair -> figure.apply(pair.get(Side.WITHOUT))).toList(),
            pairs.stream().map(pair -> figure.apply(pair.get(Side.WITH))).toList());
    List<String> rounds = new ArrayList<>();
    for (int r = 0; r < byRound.size(); r++) {
      double[] ratios = byRound.get(r);
      int mid = ratios.length / 2;
      double median = ratios.length % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
      rounds.add(
          String.format(
              "%d: x%.3f (x%.3f to x%.3f)", r + 1, median, ratios[0], ratios[ratios.length - 1]));
    }
    return String.join("; ", rounds);
  }

  private static List<Double> cpuMicrosPerOp(List<Measured> rounds) {
    return rounds.stream().map(round -> round.run().cpuMicrosPerOp()).toList();
  }

  private static double summedRatio(Map<Side, List<Measured>> pair) {
    return Measured.sum(pair.get(Side.WITH)).run().opsPerSecond()
        / Measured.sum(pair.get(Side.WITHOUT)).run().opsPerSecond();
  }

  private static List<Measured> roundsOf(List<Map<Side, List<Measured>>> pairs, Side side) {
    return pairs.stream().flatMap(pair -> pair.get(side).stream()).toList();
  }

  private static List<Double> opsPerSecond(List<Measured> rounds) {
    return rounds.stream().map(round -> round.run().opsPerSecond()).toList();
  }

  private static double perThousand(Measured measured) {
    return measured.run().gets() == 0 ? 0 : 1000.0 * measured.redisGets() / measured.run().gets();
  }

  private static String percentChange(double without, double with) {
    return without == 0 ? "" : String.format("%+.1f%%", 100 * (with - without) / without);
  }

  private static void row(
      PrintStream out, String format, String label, double without, double with, String change) {
    out.printf(
        format, label, String.format("%,.0f", without), String.format("%,.0f", with), change);
  }
}
