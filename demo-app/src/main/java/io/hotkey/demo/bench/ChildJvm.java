package io.hotkey.demo.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A benchmark's child JVM: this JVM's {@code java} and class path, the same fixed heap whether or
 * not it runs the agent, and a watchdog so that a child that hangs (a deadlock under an agent, say)
 * cannot hang the benchmark. The parent talks to it over its stdin and stdout; its stderr goes to
 * the parent's.
 */
final class ChildJvm implements AutoCloseable {

  /** Same fixed heap for every run, so GC sizing is not part of the difference. */
  static final List<String> HEAP = List.of("-Xms512m", "-Xmx512m");

  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final Thread watchdog;
  private final PrintStream echo;

  private ChildJvm(Process process, long timeoutSeconds, PrintStream echo) {
    this.process = process;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.echo = echo;
    this.watchdog =
        new Thread(
            () -> {
              try {
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                  process.destroyForcibly();
                }
              } catch (InterruptedException e) {
                process.destroyForcibly();
              }
            },
            "child-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  /**
   * Starts {@code main} with {@code args}; with an agent, also {@code -javaagent:}, no periodic
   * top-keys line (it would interleave with the benchmark's output), every {@code -Dhotkey.*} given
   * to this JVM, and then {@code agentProperties} ({@code name=value}), which win over those. The
   * child is killed after {@code timeoutSeconds}; {@code echo} gets the lines of its stdout that
   * the parent does not consume.
   */
  static ChildJvm start(
      Class<?> main,
      List<String> args,
      Optional<Path> agent,
      List<String> agentProperties,
      long timeoutSeconds,
      PrintStream echo)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(HEAP);
    agent.ifPresent(
        jar -> {
          command.add("-javaagent:" + jar.toAbsolutePath());
          command.add("-Dhotkey.report.interval=0");
          for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("hotkey.")) {
              command.add("-D" + name + "=" + System.getProperty(name));
            }
          }
          agentProperties.forEach(property -> command.add("-D" + property));
        });
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new ChildJvm(process, timeoutSeconds, echo);
  }

  /** Echoes the child's other output and returns the first line that {@code wanted} accepts. */
  String awaitLine(Predicate<String> wanted) throws IOException, InterruptedException {
    String line;
    while ((line = out.readLine()) != null) {
      if (wanted.test(line)) {
        return line;
      }
      echo.println("  child: " + line);
    }
    throw new IllegalStateException(
        "child JVM ended early (exit code " + process.waitFor() + "); its stderr is above");
  }

  void send(String line) throws IOException {
    in.write(line + "\n");
    in.flush();
  }

  /**
   * Closes the child's stdin, echoes the rest of its output and waits for it to exit.
   *
   * @throws IllegalStateException if it exited with a status other than 0
   */
  void finish() throws IOException, InterruptedException {
    in.close();
    String line;
    while ((line = out.readLine()) != null) {
      echo.println("  child: " + line);
    }
    int exit = process.waitFor();
    if (exit != 0) {
      throw new IllegalStateException("child JVM exited with " + exit);
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
    watchdog.interrupt();
    try {
      in.close();
    } catch (IOException e) {
      // the process is gone; nothing left to flush
    }
    try {
      out.close();
    } catch (IOException e) {
      // likewise
    }
  }
}
