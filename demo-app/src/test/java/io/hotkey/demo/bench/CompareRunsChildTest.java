package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.demo.redis.CommandStats;
import io.hotkey.demo.redis.RedisEndpoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** The no-agent half of the benchmark: a real child JVM against a real Redis. */
class CompareRunsChildTest {

  @ParameterizedTest
  @EnumSource(Client.class)
  void childRunWithoutAgentReportsWhatRedisCountedInEachRoundAndIdlesBetween(Client client)
      throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (RedisEndpoint redis = RedisEndpoint.startEmbedded();
        Jedis stats = redis.newConnection();
        RedisClient seeding = redis.newPooledClient(1)) {
      Workload.STORM.seed(seeding);
      List<CompareRuns.Measured> rounds = new ArrayList<>();
      CommandStats idleBefore;
      CommandStats idleAfter;

      try (ChildJvm child =
          CompareRuns.startChild(
              redis,
              Workload.STORM,
              client,
              2,
              1,
              Optional.empty(),
              List.of(),
              60,
              new PrintStream(log, true, StandardCharsets.UTF_8))) {
        rounds.add(CompareRuns.measureRound(child, stats, Duration.ofSeconds(1)));
        idleBefore = CommandStats.read(stats);
        Thread.sleep(300);
        idleAfter = CommandStats.read(stats);
        rounds.add(CompareRuns.measureRound(child, stats, Duration.ofMillis(500)));
        child.finish();
      }

      assertEquals(
          0,
          idleAfter.callsSince(idleBefore, "get", "set"),
          "the child sent commands between rounds");
      for (CompareRuns.Measured measured : rounds) {
        RunResult run = measured.run();
        assertTrue(run.ops() > 0, "the child did no work; its output: " + log);
        assertEquals(0, run.errors());
        assertEquals(run.gets() + run.sets(), run.ops());
        assertTrue(run.seconds() >= 0.5 && run.seconds() < 5, "measured " + run.seconds() + " s");
        // Warm-up and earlier rounds' traffic (async: every command sent, completed) stops before
        // the
        // parent's snapshot, so without an agent the counts match exactly.
        assertEquals(run.gets(), measured.redisGets());
        assertEquals(run.sets(), measured.redisSets());
      }
      CompareRuns.Measured total = CompareRuns.Measured.sum(rounds);
      assertEquals(rounds.get(0).run().ops() + rounds.get(1).run().ops(), total.run().ops());
    }
  }

  @Test
  void clientNamesRoundTrip() {
    for (Client client : Client.values()) {
      assertEquals(client, Client.named(client.cliName()));
    }
    assertEquals("lettuce-async", Client.LETTUCE_ASYNC.cliName());
  }

  @Test
  void resultLineRoundTrips() {
    RunResult result = new RunResult(1_000, 980, 20, 1, 2.5, 0.5);
    assertTrue(RunResult.isResultLine(result.toLine()));
    assertEquals(result, RunResult.parse(result.toLine()));
    assertEquals(400.0, result.opsPerSecond());
    assertEquals(500.0, result.cpuMicrosPerOp());
    assertEquals(new RunResult(2_000, 1_960, 40, 2, 5.0, 1.0), result.plus(result));
  }

  @Test
  void roundsAlternateTheOrder() {
    assertEquals(List.of("a", "b"), Rounds.order(List.of("a", "b"), 0));
    assertEquals(List.of("b", "a"), Rounds.order(List.of("a", "b"), 1));
    assertEquals(List.of("a", "b"), Rounds.order(List.of("a", "b"), 2));
  }

  @Test
  void theMedianPairedRatioComparesEachRoundWithItsPartner() {
    // the machine slows down by half after round 2: the sums would say x0.83, each pair says x0.9
    // or x1.0
    assertEquals(
        0.9,
        Rounds.medianPairedRatio(List.of(100.0, 100.0, 50.0), List.of(90.0, 90.0, 50.0)),
        1e-12);
    assertEquals(0.95, Rounds.medianPairedRatio(List.of(100.0, 50.0), List.of(90.0, 50.0)), 1e-12);
    assertThrows(
        IllegalArgumentException.class, () -> Rounds.medianPairedRatio(List.of(1.0), List.of()));
  }

  @Test
  void ratiosByRoundPairEachRoundWithItsPartnerInEveryPairOfJvms() {
    // two pairs of JVMs whose agent side warms up over three rounds
    List<double[]> byRound =
        Rounds.ratiosByRound(
            List.of(List.of(100.0, 100.0, 100.0), List.of(200.0, 200.0, 200.0)),
            List.of(List.of(80.0, 95.0, 100.0), List.of(100.0, 180.0, 202.0)));
    assertEquals(3, byRound.size());
    assertArrayEquals(new double[] {0.5, 0.8}, byRound.get(0), 1e-12);
    assertArrayEquals(new double[] {0.9, 0.95}, byRound.get(1), 1e-12);
    assertArrayEquals(new double[] {1.0, 1.01}, byRound.get(2), 1e-12);
    assertThrows(
        IllegalArgumentException.class,
        () -> Rounds.ratiosByRound(List.of(List.of(1.0, 2.0)), List.of(List.of(1.0))));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Rounds.ratiosByRound(
                List.of(List.of(1.0, 2.0), List.of(1.0)),
                List.of(List.of(1.0, 2.0), List.of(1.0))));
  }

  @Test
  void summedRatioIntervalSpansWhatTheRoundPairsDisagreeOn() {
    double[] steady =
        Rounds.summedRatioInterval(
            List.of(List.of(100.0, 80.0, 120.0)), List.of(List.of(90.0, 72.0, 108.0)));
    assertEquals(0.9, steady[0], 1e-12, "every pair says x0.9, whatever the machine's speed");
    assertEquals(0.9, steady[1], 1e-12);
    List<Double> without = List.of(100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0);
    List<Double> with = List.of(95.0, 100.0, 105.0, 98.0, 102.0, 70.0, 99.0, 101.0);
    double[] split = Rounds.summedRatioInterval(List.of(without), List.of(with));
    double summed = with.stream().mapToDouble(Double::doubleValue).sum() / 800;
    assertTrue(
        split[0] < summed && summed < split[1], summed + " in " + split[0] + " to " + split[1]);
    assertTrue(
        split[0] < 0.93 && split[1] > 0.99,
        "one split pair widens it: " + split[0] + " to " + split[1]);
    assertThrows(
        IllegalArgumentException.class,
        () -> Rounds.summedRatioInterval(List.of(List.of(1.0, 2.0)), List.of(List.of(1.0))));
    assertThrows(
        IllegalArgumentException.class,
        () -> Rounds.summedRatioInterval(List.of(List.of(1.0)), List.of()));
  }

  @Test
  void summedRatioIntervalShowsHowMuchThePairsOfJvmsDisagree() {
    // within each pair of JVMs the rounds agree exactly, but one pair says x1.0 and the other x0.9
    List<List<Double>> without =
        List.of(List.of(100.0, 100.0, 100.0, 100.0), List.of(100.0, 100.0, 100.0, 100.0));
    List<List<Double>> with =
        List.of(List.of(100.0, 100.0, 100.0, 100.0), List.of(90.0, 90.0, 90.0, 90.0));
    double[] interval = Rounds.summedRatioInterval(without, with);
    assertEquals(0.9, interval[0], 1e-12, "both draws from the slow pair");
    assertEquals(1.0, interval[1], 1e-12, "both draws from the fast pair");
    double[] pooled =
        Rounds.summedRatioInterval(
            List.of(without.stream().flatMap(List::stream).toList()),
            List.of(with.stream().flatMap(List::stream).toList()));
    assertTrue(
        pooled[1] - pooled[0] < interval[1] - interval[0],
        "as one group, the rounds alone understate it: " + pooled[0] + " to " + pooled[1]);
  }
}
