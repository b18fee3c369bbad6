package io.hotkey.demo.bench;

import io.hotkey.demo.redis.RedisEndpoint;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import redis.clients.jedis.Jedis;

/**
 * What the agent costs a JVM's start, side by side with and without it:
 *
 * <pre>
 * java -cp hotkey-demo.jar io.hotkey.demo.bench.StartupBench --agent agent/target/hotkey-agent.jar
 *      [--baseline-agent another/hotkey-agent.jar] [--weave-cache /tmp/weave-cache] [--runs 10] [--plain-runs 5]
 *      [--boot-jar integration-tests/target/boot-build/target/boot-app-lettuce.jar] [--boot-runs 5]
 * </pre>
 *
 * <ol>
 *   <li>{@code java -version}, a JVM that loads no class the agent instruments: what the agent's
 *       {@code premain} costs on its own, against no agent and against an agent that does nothing
 *       ({@link NoopAgent}, what any agent costs before its {@code premain}). {@code --runs}
 *       rounds; wall time as this driver sees the child (start to exit), CPU and peak RSS as GNU
 *       {@code time} reports them.
 *   <li>{@link FirstGetApp}, a plain Lettuce application and a plain Jedis one (no framework, the
 *       client started at once, as a batch job or a CLI does), from launch to its first GET's
 *       answer: one JVM alone, and three started at once (a fleet's rolling restart on one host;
 *       the time is the slowest one's). {@code --plain-runs} rounds (0 leaves them out); CPU read
 *       from {@code /proc} at each answer.
 *   <li>With {@code --boot-jar}, the integration tests' Spring Boot application (Lettuce, Tomcat,
 *       actuator, Micrometer), started as {@code SpringBootApp} starts it, against a Redis: {@code
 *       --boot-runs} rounds, each run timed from launch to Boot's {@code Started} line and to the
 *       answer of the first {@code GET /kv/<key>} (the application's first Redis GET, which also
 *       initializes Spring MVC); CPU and peak RSS read from {@code /proc} at that answer.
 * </ol>
 *
 * In every round each side runs once, first, second... and last in turn ({@link #measure}). {@code
 * --baseline-agent} adds another build of the agent as one more side, to compare two builds under
 * the same drift; {@code --weave-cache <dir>} adds the agent with {@code
 * hotkey.weave-cache.dir=<dir>}, filled by an untimed run of each plain application before its
 * rounds (as at a restart). Classes loaded come from one more run per side with {@code
 * -Xlog:class+load}, outside the timed ones. Every figure is the median over the rounds. Linux only
 * ({@code /usr/bin/time}, {@code /proc}).
 */
public final class StartupBench {
  /** The JVM flags {@code SpringBootApp} starts the Boot application with. */
  static final List<String> BOOT_JVM =
      List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final String GNU_TIME = "/usr/bin/time";
  private static final String KEY = "startup-bench";

  /** JVMs started at once on one host, as in a fleet's rolling restart. */
  private static final int FLEET_JVMS = 3;

  /** One way to start the JVM: without an agent, or with one. */
  /**
   * One way of starting the JVMs measured.
   *
   * @param agentProperties system properties given to the agent, e.g. its weave cache
   */
  record Side(
      String label, Optional<Path> agent, boolean isHotkeyAgent, List<String> agentProperties) {
    static final Side WITHOUT = new Side("without", Optional.empty(), false, List.of());

    Side(String label, Optional<Path> agent, boolean isHotkeyAgent) {
      this(label, agent, isHotkeyAgent, List.of());
    }
  }

  private StartupBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs options =
        BenchArgs.parse(
            args,
            "--agent",
            "--baseline-agent",
            "--runs",
            "--plain-runs",
            "--boot-jar",
            "--boot-runs",
            "--weave-cache");
    Path agent =
        Path.of(
            options
                .text("--agent")
                .orElseThrow(() -> new IllegalArgumentException("--agent <hotkey-agent.jar>")));
    List<Side> agents = new ArrayList<>(List.of(new Side("agent", Optional.of(agent), true)));
    options
        .text("--baseline-agent")
        .ifPresent(other -> agents.add(new Side("baseline", Optional.of(Path.of(other)), true)));
    Optional<Path> weaveCache = options.text("--weave-cache").map(Path::of);
    if (weaveCache.isPresent()) {
      agents.add(
          new Side(
              "agent, weave cache filled",
              Optional.of(agent),
              true,
              List.of("-Dhotkey.weave-cache.dir=" + weaveCache.get().toAbsolutePath())));
    }
    int runs = options.wholeNumber("--runs", 10, 1);
    int plainRuns = options.wholeNumber("--plain-runs", 5, 0);
    Optional<Path> bootJar = options.text("--boot-jar").map(Path::of);
    int bootRuns = options.wholeNumber("--boot-runs", 5, 1);
    PrintStream out = System.out;
    Table table = new Table();
    measureJavaVersion(agents, runs, table, out);
    if (plainRuns > 0 || bootJar.isPresent()) {
      try (RedisEndpoint redis = RedisEndpoint.fromEnvironment();
          Jedis seeding = redis.newConnection()) {
        seeding.set(KEY, "v");
        if (plainRuns > 0) {
          for (String client : List.of("lettuce", "jedis")) {
            measurePlain(agents, client, 1, redis, plainRuns, table, out);
            measurePlain(agents, client, FLEET_JVMS, redis, plainRuns, table, out);
          }
        }
        if (bootJar.isPresent()) {
          measureBoot(agents, bootJar.get(), redis, bootRuns, table, out);
        }
      }
    }
    out.println();
    table.print(out);
  }

  /**
   * {@code java -version} without an agent, with one that does nothing ({@link NoopAgent}: what any
   * agent costs before its {@code premain}), and with each agent given.
   */
  static void measureJavaVersion(List<Side> agents, int runs, Table table, PrintStream out)
      throws Exception {
    List<Side> sides = new ArrayList<>(List.of(Side.WITHOUT));
    sides.add(new Side("noop agent", Optional.of(NoopAgent.writeJar()), false));
    sides.addAll(agents);
    out.println("java -version, " + runs + " rounds of " + sides.size() + " runs");
    List<List<JvmRun>> measured = measure(sides, runs, out, JvmRun::javaVersion);
    List<Long> without = List.of(JvmRun.classesLoaded(Side.WITHOUT, List.of("-version")));
    for (int i = 1; i < sides.size(); i++) {
      String prefix = "`java -version`, " + sides.get(i).label() + ": ";
      table.row(prefix + "wall", measured.get(0), measured.get(i), JvmRun::wallMillis, "ms");
      table.row(
          prefix + "CPU (user + sys)", measured.get(0), measured.get(i), JvmRun::cpuMillis, "ms");
      table.row(prefix + "peak RSS", measured.get(0), measured.get(i), JvmRun::peakRssMib, "MiB");
      table.row(
          prefix + "classes loaded",
          without,
          List.of(JvmRun.classesLoaded(sides.get(i), List.of("-version"))),
          count -> count,
          "");
    }
  }

  /**
   * {@link FirstGetApp} on {@code client}: {@code jvms} started at once, without an agent and with
   * each agent given.
   */
  static void measurePlain(
      List<Side> agents,
      String client,
      int jvms,
      RedisEndpoint redis,
      int runs,
      Table table,
      PrintStream out)
      throws Exception {
    List<Side> sides = new ArrayList<>(List.of(Side.WITHOUT));
    sides.addAll(agents);
    String what = "plain " + client + (jvms == 1 ? "" : ", " + jvms + " JVMs at once");
    out.println(what + ", " + runs + " rounds of " + sides.size() + " runs");
    for (Side side : agents) {
      if (!side.agentProperties().isEmpty()) {
        // an untimed run first: a weave cache is measured filled, as at a restart
        PlainRun.start(side, client, 1, redis, KEY).firstGetMillis();
      }
    }
    List<List<PlainRun>> measured =
        measure(sides, runs, out, side -> PlainRun.start(side, client, jvms, redis, KEY));
    for (int i = 1; i < sides.size(); i++) {
      String prefix = what + ", " + sides.get(i).label() + ": ";
      table.row(
          prefix + (jvms == 1 ? "launch to first GET answered" : "launch to the last first GET"),
          measured.get(0),
          measured.get(i),
          PlainRun::firstGetMillis,
          "ms");
      table.row(
          prefix + "CPU until first GET" + (jvms == 1 ? "" : "s, all JVMs"),
          measured.get(0),
          measured.get(i),
          PlainRun::cpuMillis,
          "ms");
    }
  }

  /** The Boot application without an agent and with each agent given. */
  static void measureBoot(
      List<Side> agents, Path bootJar, RedisEndpoint redis, int runs, Table table, PrintStream out)
      throws Exception {
    List<Side> sides = new ArrayList<>(List.of(Side.WITHOUT));
    sides.addAll(agents);
    out.println(
        "Spring Boot application "
            + bootJar.getFileName()
            + ", "
            + runs
            + " rounds of "
            + sides.size()
            + " runs");
    List<List<BootRun>> measured =
        measure(sides, runs, out, side -> BootRun.start(side, bootJar, redis, KEY, false));
    List<BootRun> without = measured.get(0);
    BootRun classesWithout = BootRun.start(Side.WITHOUT, bootJar, redis, KEY, true);
    for (int i = 1; i < sides.size(); i++) {
      String prefix = "Boot, " + sides.get(i).label() + ": ";
      List<BootRun> with = measured.get(i);
      table.row(prefix + "launch to `Started`", without, with, BootRun::startedMillis, "ms");
      table.row(
          prefix + "launch to first GET answered", without, with, BootRun::firstGetMillis, "ms");
      table.row(
          prefix + "the first GET itself", without, with, BootRun::firstGetLatencyMillis, "ms");
      table.row(prefix + "CPU until first GET", without, with, BootRun::cpuMillis, "ms");
      table.row(prefix + "peak RSS at first GET", without, with, BootRun::peakRssMib, "MiB");
      table.row(
          prefix + "classes loaded at first GET",
          List.of(classesWithout),
          List.of(BootRun.start(sides.get(i), bootJar, redis, KEY, true)),
          BootRun::classes,
          "");
    }
  }

  /** One run of something, on one side. */
  interface Runner<T> {
    T run(Side side) throws Exception;
  }

  /**
   * {@code rounds} runs of every side, each side first, second... and last in turn, so that a drift
   * of the machine falls on all of them alike.
   */
  static <T> List<List<T>> measure(List<Side> sides, int rounds, PrintStream out, Runner<T> runner)
      throws Exception {
    List<List<T>> measured = new ArrayList<>();
    sides.forEach(side -> measured.add(new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < sides.size(); i++) {
        int side = (i + round) % sides.size();
        T run = runner.run(sides.get(side));
        measured.get(side).add(run);
        out.printf("  round %d %-11s %s%n", round + 1, sides.get(side).label(), run);
      }
    }
    return measured;
  }

  /** Medians with and without the agent, as a Markdown table. */
  static final class Table {
    private final List<String> rows = new ArrayList<>();

    <T> void row(
        String what, List<T> without, List<T> with, Function<T, Number> figure, String unit) {
      double a = median(without, figure);
      double b = median(with, figure);
      rows.add(
          String.format(
              "| %s | %s | %s | %s (×%.2f) | %s |",
              what,
              format(a, unit),
              format(b, unit),
              (b >= a ? "+" : "") + format(b - a, unit),
              a == 0 ? Double.NaN : b / a,
              roundRatios(without, with, figure)));
    }

    /**
     * The lowest and highest ratio of a round's run with to its run without, when both sides ran
     * the same rounds: how far the machine's drift spreads the median's ratio.
     */
    private static <T> String roundRatios(
        List<T> without, List<T> with, Function<T, Number> figure) {
      if (without.size() != with.size() || without.size() < 2) {
        return "";
      }
      double lowest = Double.MAX_VALUE;
      double highest = 0;
      for (int round = 0; round < without.size(); round++) {
        double ratio =
            figure.apply(with.get(round)).doubleValue()
                / figure.apply(without.get(round)).doubleValue();
        lowest = Math.min(lowest, ratio);
        highest = Math.max(highest, ratio);
      }
      return String.format("×%.2f–%.2f", lowest, highest);
    }

    void print(PrintStream out) {
      out.println("| median | without | with | difference | rounds' ratios |");
      out.println("|---|---|---|---|---|");
      rows.forEach(out::println);
    }

    private static <T> double median(List<T> runs, Function<T, Number> figure) {
      double[] values =
          runs.stream().mapToDouble(run -> figure.apply(run).doubleValue()).sorted().toArray();
      int middle = values.length / 2;
      return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    private static String format(double value, String unit) {
      String number =
          unit.equals("MiB") ? String.format("%.1f", value) : String.format("%.0f", value);
      return unit.isEmpty() ? number : number + " " + unit;
    }
  }

  /** One short-lived JVM, timed by this driver and measured by GNU {@code time}. */
  record JvmRun(long wallMillis, long cpuMillis, double peakRssMib) {
    static JvmRun javaVersion(Side side) throws IOException, InterruptedException {
      Path report = Files.createTempFile("startup-bench", ".time");
      try {
        List<String> command =
            new ArrayList<>(List.of(GNU_TIME, "-f", "%U %S %M", "-o", report.toString()));
        command.addAll(javaCommand(side, List.of("-version")));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        long wall = (System.nanoTime() - start) / 1_000_000;
        requireAgentActive(side, exit, output);
        String[] times = Files.readString(report).trim().split("\\s+");
        long cpu = Math.round((Double.parseDouble(times[0]) + Double.parseDouble(times[1])) * 1000);
        return new JvmRun(wall, cpu, Long.parseLong(times[2]) / 1024.0);
      } finally {
        Files.deleteIfExists(report);
      }
    }

    /** Classes the JVM loaded running {@code args}, counted in a {@code -Xlog:class+load} file. */
    static long classesLoaded(Side side, List<String> args)
        throws IOException, InterruptedException {
      Path log = Files.createTempFile("startup-bench", ".classes");
      try {
        List<String> command = new ArrayList<>(javaCommand(side, List.of()));
        command.add(1, "-Xlog:class+load:file=" + log);
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        process.waitFor();
        try (var lines = Files.lines(log)) {
          return lines.count();
        }
      } finally {
        Files.deleteIfExists(log);
      }
    }

    @Override
    public String toString() {
      return String.format(
          "wall %5d ms  cpu %5d ms  rss %6.1f MiB", wallMillis, cpuMillis, peakRssMib);
    }
  }

  /** {@code java [-javaagent:...] args}; with the agent, no periodic report line. */
  static List<String> javaCommand(Side side, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    side.agent()
        .ifPresent(
            jar -> {
              command.add("-javaagent:" + jar.toAbsolutePath());
              command.add("-Dhotkey.report.interval=0");
              command.addAll(side.agentProperties());
            });
    command.addAll(args);
    return command;
  }

  /** A measurement with the agent counts only if the agent really started. */
  static void requireAgentActive(Side side, int exit, String output) {
    if (exit != 0) {
      throw new IllegalStateException("the JVM exited with " + exit + ":\n" + output);
    }
    if (side.isHotkeyAgent() && !output.contains("[hotkey] active:")) {
      throw new IllegalStateException("the agent did not start:\n" + output);
    }
  }
}
