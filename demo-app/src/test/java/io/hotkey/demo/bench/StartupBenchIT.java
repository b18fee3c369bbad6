package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The start-up benchmark's {@code java -version} part, one round with the agent jar the reactor
 * built. It asserts that every side ran (the agent really started on its side) and was measured,
 * never how fast any was.
 */
class StartupBenchIT {

  @Test
  void everySideRunsAndIsMeasured() throws Exception {
    Path agent = AgentJar.built();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);
    StartupBench.Table table = new StartupBench.Table();

    StartupBench.measureJavaVersion(
        List.of(new StartupBench.Side("agent", Optional.of(agent), true)), 1, table, out);
    table.print(out);

    String output = log.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    assertEquals(3, output.lines().filter(line -> line.startsWith("  round 1 ")).count(), output);
    for (String side : List.of("`java -version`, agent", "`java -version`, noop agent")) {
      for (String figure : List.of("wall", "CPU (user + sys)", "peak RSS", "classes loaded")) {
        assertTrue(output.contains("| " + side + ": " + figure + " |"), side + " " + figure);
      }
    }
    StartupBench.Side withAgent = new StartupBench.Side("agent", Optional.of(agent), true);
    StartupBench.JvmRun with = StartupBench.JvmRun.javaVersion(withAgent);
    assertTrue(with.wallMillis() > 0 && with.peakRssMib() > 1, with.toString());
    assertTrue(
        StartupBench.JvmRun.classesLoaded(withAgent, List.of("-version"))
            > StartupBench.JvmRun.classesLoaded(StartupBench.Side.WITHOUT, List.of("-version")),
        "the agent's JVM loaded no more classes than a plain one");
  }
}
