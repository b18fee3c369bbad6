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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One round of {@link FirstGetApp} for {@link StartupBench}: {@code jvms} of them launched at once
 * (one alone, or several as in a fleet's rolling restart on one host), each timed from its launch
 * to its first GET's answer, with its CPU read from {@code /proc} at that answer.
 *
 * @param firstGetMillis launch to the first GET's answer, of the slowest JVM
 * @param cpuMillis user + sys of all the JVMs, each at its first GET's answer
 */
record PlainRun(long firstGetMillis, long cpuMillis) {

  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  static PlainRun start(
      StartupBench.Side side, String client, int jvms, RedisEndpoint redis, String key)
      throws IOException, InterruptedException {
    List<String> args =
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            FirstGetApp.class.getName(),
            client,
            redis.uri().getHost(),
            Integer.toString(redis.uri().getPort()),
            key);
    List<Process> processes = new ArrayList<>();
    List<Path> stderrs = new ArrayList<>();
    try {
      long launched = System.nanoTime();
      for (int i = 0; i < jvms; i++) {
        Path stderr = Files.createTempFile("startup-bench-plain", ".stderr");
        stderrs.add(stderr);
        processes.add(
            new ProcessBuilder(StartupBench.javaCommand(side, args))
                .redirectError(stderr.toFile())
                .start());
      }
      // each JVM's stdout on a thread of its own, so that each answer is timed as it comes
      List<FutureTask<Answer>> answers = new ArrayList<>();
      for (int i = 0; i < jvms; i++) {
        Process process = processes.get(i);
        Path stderr = stderrs.get(i);
        FutureTask<Answer> answer = new FutureTask<>(() -> awaitAnswer(process, stderr));
        answers.add(answer);
        Thread reader = new Thread(answer, "plain-stdout-" + i);
        reader.setDaemon(true);
        reader.start();
      }
      long slowest = 0;
      long cpu = 0;
      for (FutureTask<Answer> pending : answers) {
        Answer answer;
        try {
          answer = pending.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          throw new IllegalStateException("a " + client + " application gave no answer", e);
        }
        slowest = Math.max(slowest, answer.nanoTime() - launched);
        cpu += answer.cpuMillis();
      }
      for (int i = 0; i < jvms; i++) {
        Process process = processes.get(i);
        if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("a " + client + " application did not exit");
        }
        StartupBench.requireAgentActive(
            side, process.exitValue(), Files.readString(stderrs.get(i)));
      }
      return new PlainRun(slowest / 1_000_000, cpu);
    } finally {
      for (Process process : processes) {
        process.destroyForcibly();
      }
      for (Path stderr : stderrs) {
        Files.deleteIfExists(stderr);
      }
    }
  }

  /** When a JVM answered, and the CPU it had used by then. */
  private record Answer(long nanoTime, long cpuMillis) {}

  /** Reads the application's stdout up to its answer line. */
  private static Answer awaitAnswer(Process process, Path stderr)
      throws IOException, InterruptedException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(FirstGetApp.ANSWERED)) {
        long answered = System.nanoTime();
        return new Answer(
            answered, process.info().totalCpuDuration().map(Duration::toMillis).orElse(0L));
      }
    }
    throw new IllegalStateException(
        "no answer, exit " + process.waitFor() + ": " + Files.readString(stderr));
  }

  @Override
  public String toString() {
    return String.format("first GET answered %5d ms  cpu %5d ms", firstGetMillis, cpuMillis);
  }
}
