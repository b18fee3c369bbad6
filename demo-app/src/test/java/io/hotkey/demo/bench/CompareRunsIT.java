package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The comparison end to end in a short form: a child JVM without and one with the agent jar the
 * reactor built, a real Redis, two alternating rounds. It asserts that each side reports every
 * round, never how fast.
 */
class CompareRunsIT {

  @Test
  void twoPairsOfJvmsWithTwoRoundsEachReportEveryRoundOfBothSides() throws Exception {
    Path agent = AgentJar.built();
    ByteArrayOutputStream log = new ByteArrayOutputStream();

    List<Map<CompareRuns.Side, List<CompareRuns.Measured>>> pairs =
        CompareRuns.compare(
            agent,
            Baseline.NO_AGENT,
            Workload.STORM,
            Client.JEDIS,
            new CompareRuns.Plan(2, 2, 1, 2, 2),
            new PrintStream(log, true, StandardCharsets.UTF_8));

    String output = log.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    assertEquals(2, pairs.size(), output);
    for (Map<CompareRuns.Side, List<CompareRuns.Measured>> measured : pairs) {
      assertEquals(List.of(CompareRuns.Side.values()), List.copyOf(measured.keySet()));
      for (List<CompareRuns.Measured> rounds : measured.values()) {
        assertEquals(2, rounds.size(), output);
        for (CompareRuns.Measured round : rounds) {
          assertTrue(round.run().ops() > 0, output);
          assertEquals(0, round.run().errors(), output);
        }
      }
    }
    assertTrue(output.contains("JVM pair 1/2, starting and warming up: without agent"), output);
    assertTrue(output.contains("JVM pair 2/2, starting and warming up: with -javaagent:"), output);
    assertTrue(
        output.indexOf("JVM pair 2/2, starting and warming up: with -javaagent:")
            < output.indexOf("JVM pair 2/2, starting and warming up: without agent"),
        "second pair starts the" + " agent's JVM first: " + output);
    assertTrue(output.contains("round 1/2: without agent, with agent"), output);
    assertTrue(output.contains("round 2/2: with agent, without agent"), output);
    assertTrue(output.contains("in 4 alternating rounds in 2 pair(s) of JVMs"), output);
    assertTrue(output.contains("throughput with/without per pair of JVMs: x"), output);
    assertTrue(output.contains("throughput per round (ops/s): without agent "), output);
    assertTrue(output.contains("throughput with/without, median of the 4 round pairs: x"), output);
    assertTrue(output.contains("| throughput (ops/s)"), output);
  }

  @Test
  void aBaselineAgentRunsTheSameJarWithItsPropertiesOnTheOtherSide() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();

    List<Map<CompareRuns.Side, List<CompareRuns.Measured>>> pairs =
        CompareRuns.compare(
            AgentJar.built(),
            Baseline.agentWith("hotkey.cache.invalidation=ttl"),
            Workload.STORM,
            Client.JEDIS,
            new CompareRuns.Plan(2, 2, 2, 2, 1),
            new PrintStream(log, true, StandardCharsets.UTF_8));

    String output = log.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    for (List<CompareRuns.Measured> side : pairs.get(0).values()) {
      CompareRuns.Measured total = CompareRuns.Measured.sum(side);
      assertTrue(
          total.redisGets() < total.run().gets() / 2,
          "both sides serve hot keys locally: " + output);
    }
    assertTrue(
        output.contains(
            "JVM pair 1/1, starting and warming up: agent hotkey.cache.invalidation=ttl"),
        output);
    assertTrue(
        output.contains("round 1/2: agent hotkey.cache.invalidation=ttl, with agent"), output);
    assertTrue(output.contains("throughput with/baseline per pair of JVMs: x"), output);
  }
}
