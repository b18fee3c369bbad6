package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The idempotency benchmark end to end in its shortest form, on each of its servers: four real
 * child JVMs (two with the agent jar the reactor built), a real Redis, a few hundred requests each.
 * It asserts that the benchmark ran and that what it measured was real work, never how fast
 * anything was.
 */
class IdempotencyBenchIT {

  private static final long REQUESTS = 300;

  @Test
  void everyConfigurationAnswersAndTheAgentReallyClaimsStoresAndReplays() throws Exception {
    runAndCheck(IdempotencyBench.Server.JDK);
  }

  @Test
  void theSameOnSpringWebFlux() throws Exception {
    runAndCheck(IdempotencyBench.Server.WEBFLUX);
  }

  private static void runAndCheck(IdempotencyBench.Server server) throws Exception {
    Path agent = AgentJar.built();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);

    IdempotencyBench.Report report =
        IdempotencyBench.run(
            new IdempotencyBench.Settings(agent, server, 2, 0, 30, 2, 10, REQUESTS), out);

    String output = log.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    assertTrue(report.allChecksHold(), "a check failed:\n" + output);
    assertEquals(IdempotencyBench.Setup.values().length, report.results().size());
    for (IdempotencyBench.Result result : report.results().values()) {
      String label = result.setup.label();
      // The cap ends each slice; only a stalled child would let the 15 s slice end it first.
      assertEquals(REQUESTS, result.requests, label);
      assertEquals(0, result.errors, label);
      assertEquals(REQUESTS, result.latencyNanos.getTotalCount(), label);
      assertTrue(result.throughput() > 0, label);
      assertTrue(result.retries > 0, label + ": 10% of 300 requests were meant as retries");
      assertTrue(output.contains("| " + label), "no table row for " + label + ":\n" + output);
      if (result.setup.hasAgent()) {
        assertEquals(result.retries, result.replayed, label);
        assertEquals(REQUESTS - result.retries, result.outcome("executed"), label);
        assertEquals(REQUESTS - result.retries, result.outcome("stored"), label);
        assertEquals(result.probes, result.probesReplayed, label);
      } else {
        assertEquals(0, result.replayed, label);
        assertEquals(REQUESTS, result.handled, label);
      }
    }
    IdempotencyBench.Result redis = report.results().get(IdempotencyBench.Setup.REDIS);
    assertTrue(
        redis.scriptCalls >= 2 * (REQUESTS - redis.retries),
        "redis store script calls: " + redis.scriptCalls);
    assertTrue(
        report.redisRecords() >= REQUESTS - redis.retries,
        "records left: " + report.redisRecords());
    assertEquals(0, report.results().get(IdempotencyBench.Setup.MEMORY).scriptCalls);
    assertEquals(
        2 * REQUESTS,
        report.results().get(IdempotencyBench.Setup.PINGS).pings,
        "the service's own round trips");
    assertTrue(output.contains("the service's own 2 round trips"), output);
    assertTrue(output.contains("| vs no agent"), output);
    assertFalse(output.contains("FAIL"), output);
  }
}
