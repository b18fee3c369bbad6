package io.hotkey.demo.bench;

import io.hotkey.demo.redis.RedisEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One start of the Spring Boot application for {@link StartupBench}: launched, timed to Boot's
 * {@code Started} line and to the answer of its first {@code GET /kv/<key>}, measured there ({@code
 * /proc}), then stopped.
 */
record BootRun(
    long startedMillis,
    long firstGetMillis,
    long firstGetLatencyMillis,
    long cpuMillis,
    double peakRssMib,
    long classes) {

  private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  /**
   * @param countClasses also log class loading and count the classes loaded at the first GET's
   *     answer (this run's times then include the logging)
   */
  static BootRun start(
      StartupBench.Side side, Path jar, RedisEndpoint redis, String key, boolean countClasses)
      throws IOException, InterruptedException {
    Path stderr = Files.createTempFile("startup-bench-boot", ".stderr");
    Path classLog = Files.createTempFile("startup-bench-boot", ".classes");
    List<String> args = new ArrayList<>(StartupBench.BOOT_JVM);
    if (countClasses) {
      args.add("-Xlog:class+load:file=" + classLog);
    }
    args.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--server.port=0",
            "--spring.data.redis.host=" + redis.uri().getHost(),
            "--spring.data.redis.port=" + redis.uri().getPort()));
    long launched = System.nanoTime();
    Process process =
        new ProcessBuilder(StartupBench.javaCommand(side, args))
            .redirectError(stderr.toFile())
            .start();
    try {
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      pump(process, lines);
      int port = -1;
      long started = -1;
      long deadline = launched + TIMEOUT.toNanos();
      while (started < 0) {
        String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException(
              "no Started line within " + TIMEOUT + "; stderr: " + Files.readString(stderr));
        }
        Matcher m = PORT.matcher(line);
        if (m.find()) {
          port = Integer.parseInt(m.group(1));
        } else if (line.contains("Started BootApp")) {
          started = System.nanoTime();
        }
      }
      long asked = System.nanoTime();
      try (KeepAliveConnection http = new KeepAliveConnection(port)) {
        KeepAliveConnection.Answer answer = http.get("/kv/" + key);
        if (answer.status() != 200) {
          throw new IllegalStateException("GET /kv/" + key + " answered " + answer.status());
        }
      }
      long answered = System.nanoTime();
      long cpu = process.info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
      double rss = peakRssMib(process.pid());
      long classes = countClasses ? countLines(classLog) : 0;
      StartupBench.requireAgentActive(side, 0, Files.readString(stderr));
      return new BootRun(
          millis(started - launched),
          millis(answered - launched),
          millis(answered - asked),
          cpu,
          rss,
          classes);
    } finally {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      Files.deleteIfExists(stderr);
      Files.deleteIfExists(classLog);
    }
  }

  /** Reads the child's stdout on its own thread, so that it never blocks on a full pipe. */
  private static void pump(Process process, BlockingQueue<String> lines) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the child is gone
              }
            },
            "boot-stdout");
    thread.setDaemon(true);
    thread.start();
  }

  /** {@code VmHWM}: the most resident memory the process has had so far. */
  private static double peakRssMib(long pid) throws IOException {
    try (Stream<String> status = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
      return status
          .filter(line -> line.startsWith("VmHWM:"))
          .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0)
          .findFirst()
          .orElse(-1.0);
    }
  }

  private static long countLines(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    }
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }

  @Override
  public String toString() {
    return String.format(
        "started %5d ms  first GET answered %5d ms (itself %4d ms)  cpu %5d ms  rss %6.1f MiB",
        startedMillis, firstGetMillis, firstGetLatencyMillis, cpuMillis, peakRssMib);
  }
}
