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
 *      [--runs 10] [--boot-jar integration-tests/target/boot-build/target/boot-app-lettuce.jar]
 *      [--boot-runs 5]</pre>
 *
 * <ol>
 *   <li>{@code java -version}, a JVM that loads no class the agent instruments: what the agent's
 *       {@code premain} costs on its own. {@code --runs} pairs of runs, the side started first
 *       alternating; wall time as this driver sees the child (start to exit), CPU and peak RSS as
 *       GNU {@code time} reports them.
 *   <li>With {@code --boot-jar}, the integration tests' Spring Boot application (Lettuce, Tomcat,
 *       actuator, Micrometer), started as {@code SpringBootApp} starts it, against a Redis: {@code
 *       --boot-runs} alternating pairs, each timed from launch to Boot's {@code Started} line and
 *       to the answer of the first {@code GET /kv/<key>} (the application's first Redis GET, which
 *       also initializes Spring MVC); CPU and peak RSS read from {@code /proc} at that answer.
 * </ol>
 *
 * Classes loaded come from one more run per side with {@code -Xlog:class+load}, outside the timed
 * ones. Every figure is the median over the runs. Linux only ({@code /usr/bin/time}, {@code
 * /proc}).
 */
public final class StartupBench {
  /** The JVM flags {@code SpringBootApp} starts the Boot application with. */
  static final List<String> BOOT_JVM =
      List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final String GNU_TIME = "/usr/bin/time";
  private static final String KEY = "startup-bench";
  private static final String[] SIDES = {"without", "noop agent", "with agent"};

  private StartupBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs options = BenchArgs.parse(args, "--agent", "--runs", "--boot-jar", "--boot-runs");
    Path agent =
        Path.of(
            options
                .text("--agent")
                .orElseThrow(() -> new IllegalArgumentException("--agent <hotkey-agent.jar>")));
    int runs = options.wholeNumber("--runs", 10, 1);
    Optional<Path> bootJar = options.text("--boot-jar").map(Path::of);
    int bootRuns = options.wholeNumber("--boot-runs", 5, 1);
    PrintStream out = System.out;
    Table table = new Table();
    measureJavaVersion(agent, runs, table, out);
    if (bootJar.isPresent()) {
      try (RedisEndpoint redis = RedisEndpoint.fromEnvironment();
          Jedis seeding = redis.newConnection()) {
        seeding.set(KEY, "v");
        measureBoot(agent, bootJar.get(), redis, bootRuns, table, out);
      }
    }
    out.println();
    table.print(out);
  }

  /**
   * {@code java -version} without an agent, with one that does nothing ({@link NoopAgent}: what any
   * agent costs before its {@code premain}), and with the agent, in turn.
   */
  static void measureJavaVersion(Path agent, int runs, Table table, PrintStream out)
      throws Exception {
    out.println("java -version, " + runs + " rounds of three runs");
    Path noop = NoopAgent.writeJar();
    List<Optional<Path>> sides = List.of(Optional.empty(), Optional.of(noop), Optional.of(agent));
    List<List<JvmRun>> measured = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int round = 0; round < runs; round++) {
      for (int i = 0; i < sides.size(); i++) {
        // each side first, second and last in turn
        int side = (i + round) % sides.size();
        JvmRun run = JvmRun.javaVersion(sides.get(side), side == 2);
        measured.get(side).add(run);
        out.printf("  round %d %-13s %s%n", round + 1, SIDES[side], run);
      }
    }
    for (int side = 1; side < sides.size(); side++) {
      String prefix = "`java -version`" + (side == 1 ? ", an agent that does nothing" : "") + ": ";
      List<JvmRun> without = measured.get(0);
      List<JvmRun> with = measured.get(side);
      table.row(prefix + "wall", without, with, JvmRun::wallMillis, "ms");
      table.row(prefix + "CPU (user + sys)", without, with, JvmRun::cpuMillis, "ms");
      table.row(prefix + "peak RSS", without, with, JvmRun::peakRssMib, "MiB");
      table.row(
          prefix + "classes loaded",
          List.of(JvmRun.classesLoaded(Optional.empty(), List.of("-version"))),
          List.of(JvmRun.classesLoaded(sides.get(side), List.of("-version"))),
          count -> count,
          "");
    }
  }

  static void measureBoot(
      Path agent, Path bootJar, RedisEndpoint redis, int runs, Table table, PrintStream out)
      throws Exception {
    out.println(
        "Spring Boot application " + bootJar.getFileName() + ", " + runs + " pairs of runs");
    List<BootRun> without = new ArrayList<>();
    List<BootRun> with = new ArrayList<>();
    for (int pair = 0; pair < runs; pair++) {
      for (boolean withAgent :
          pair % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
        BootRun run =
            BootRun.start(
                withAgent ? Optional.of(agent) : Optional.empty(), bootJar, redis, KEY, false);
        (withAgent ? with : without).add(run);
        out.printf("  pair %d %-13s %s%n", pair + 1, withAgent ? "with agent" : "without", run);
      }
    }
    table.row("Boot: launch to `Started`", without, with, BootRun::startedMillis, "ms");
    table.row("Boot: launch to first GET answered", without, with, BootRun::firstGetMillis, "ms");
    table.row("Boot: the first GET itself", without, with, BootRun::firstGetLatencyMillis, "ms");
    table.row("Boot: CPU until first GET", without, with, BootRun::cpuMillis, "ms");
    table.row("Boot: peak RSS at first GET", without, with, BootRun::peakRssMib, "MiB");
    table.row(
        "Boot: classes loaded at first GET",
        List.of(BootRun.start(Optional.empty(), bootJar, redis, KEY, true)),
        List.of(BootRun.start(Optional.of(agent), bootJar, redis, KEY, true)),
        BootRun::classes,
        "");
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
              "| %s | %s | %s | %s (×%.2f) |",
              what,
              format(a, unit),
              format(b, unit),
              (b >= a ? "+" : "") + format(b - a, unit),
              a == 0 ? Double.NaN : b / a));
    }

    void print(PrintStream out) {
      out.println("| median | without | with | difference |");
      out.println("|---|---|---|---|");
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
    /**
     * @param hotkeyAgent the agent is Hotkey Agent, whose active line the output must show
     */
    static JvmRun javaVersion(Optional<Path> agent, boolean hotkeyAgent)
        throws IOException, InterruptedException {
      Path report = Files.createTempFile("startup-bench", ".time");
      try {
        List<String> command =
            new ArrayList<>(List.of(GNU_TIME, "-f", "%U %S %M", "-o", report.toString()));
        command.addAll(javaCommand(agent, List.of("-version")));
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        long wall = (System.nanoTime() - start) / 1_000_000;
        requireAgentActive(hotkeyAgent ? agent : Optional.empty(), exit, output);
        String[] times = Files.readString(report).trim().split("\\s+");
        long cpu = Math.round((Double.parseDouble(times[0]) + Double.parseDouble(times[1])) * 1000);
        return new JvmRun(wall, cpu, Long.parseLong(times[2]) / 1024.0);
      } finally {
        Files.deleteIfExists(report);
      }
    }

    /** Classes the JVM loaded running {@code args}, counted in a {@code -Xlog:class+load} file. */
    static long classesLoaded(Optional<Path> agent, List<String> args)
        throws IOException, InterruptedException {
      Path log = Files.createTempFile("startup-bench", ".classes");
      try {
        List<String> command = new ArrayList<>(javaCommand(agent, List.of()));
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
  static List<String> javaCommand(Optional<Path> agent, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    agent.ifPresent(
        jar -> {
          command.add("-javaagent:" + jar.toAbsolutePath());
          command.add("-Dhotkey.report.interval=0");
        });
    command.addAll(args);
    return command;
  }

  /** A measurement with the agent counts only if the agent really started. */
  static void requireAgentActive(Optional<Path> agent, int exit, String output) {
    if (exit != 0) {
      throw new IllegalStateException("the JVM exited with " + exit + ":\n" + output);
    }
    if (agent.isPresent() && !output.contains("[hotkey] active:")) {
      throw new IllegalStateException("the agent did not start:\n" + output);
    }
  }
}
