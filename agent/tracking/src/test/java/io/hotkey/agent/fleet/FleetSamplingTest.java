package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.testing.RedisClusterProcesses;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A fleet of 100 instances of the real exchange against a real Redis, twice the sample size: once
 * the fleet's size is known about half of them report each window, their counts scaled by 2, and
 * the sums stay close to the fleet's real ones. A key spread evenly at twice the threshold is hot;
 * one at half the threshold is not; one read by five instances only is counted exactly, because
 * they report it every window whether drawn or not. The rest read the hot lists only when a key
 * rises on them: while their counts hold still they send nothing, and a key that appears on every
 * instance is hot on every one of them in the window after next, as if each read every window. The
 * key at half the threshold is below its even share on every instance, so a drawn instance reports
 * it as that share about every other window: it still stays cold.
 */
class FleetSamplingTest {
  private static final int INSTANCES = 100;
  private static final int SAMPLE = 50;
  private static final Duration WINDOW = Duration.ofSeconds(2);

  /** 20,000 accesses per second: 40,000 in a 2 s window, long enough for a slow machine's round. */
  private static final long THRESHOLD = 20_000;

  @Test
  void aLargeFleetReportsASampleScaledUpAndStillFindsWhatIsHotAndOnlyThat() throws Exception {
    try (RedisProcess redis = RedisProcess.start();
        RespClient client =
            new RespClient(RedisEndpoint.of("127.0.0.1", redis.port()), 2000, 2000, 1, 0)) {
      sampleAFleet(client);
    }
  }

  /** The same over three masters, where readers' GETs go to each shard's master. */
  @Test
  void aClusterFleetReadsEveryShardFromItsMaster() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3);
        RespClient client = new RespClient(cluster.endpoint(0), 2000, 2000, 1, 0)) {
      sampleAFleet(client);
    }
  }

  /**
   * A drawn instance of a fleet of 10,000 with a 1-in-20 sample (an even share of 2 per window): a
   * count at or above the share is reported times 20; a count of 1, half the share, is reported as
   * 40 about every other draw, so that over many draws it adds what reporting 20 each time would.
   */
  @Test
  void aCountBelowItsEvenShareIsReportedAsTheShareWithAChanceThatKeepsItsSum() {
    double chance = 0.05;
    double evenShare = 2;
    assertEquals(60, FleetExchange.sampledReport(count("k", 3), chance, evenShare).count());
    assertEquals(40, FleetExchange.sampledReport(count("k", 2), chance, evenShare).count());
    int draws = 100_000;
    long reported = 0;
    long sum = 0;
    for (int i = 0; i < draws; i++) {
      KeyCount report = FleetExchange.sampledReport(count("k", 1), chance, evenShare);
      if (report != null) {
        assertEquals(40, report.count(), "reported as the share, scaled");
        reported++;
        sum += report.count();
      }
    }
    // a binomial count of 100,000 draws at 1/2: 5 standard deviations are 0.8%
    assertTrue(Math.abs(reported - draws / 2) < 800, reported + " of " + draws + " reported");
    double expected = 20.0 * draws;
    assertTrue(Math.abs(sum - expected) < expected * 0.02, "sum " + sum + " against " + expected);
  }

  /**
   * A sample whose scaled counts are not whole (3 of 10 instances drawn, an even share of 2): each
   * report is rounded down or up at random, so that the mean of many stays count / chance instead
   * of the bias a fixed rounding would give every report of the fleet alike (7 for 6.67: +5%).
   */
  @Test
  void aScaledCountThatIsNotWholeIsRoundedWithoutBias() {
    double chance = 0.3;
    double evenShare = 2;
    assertEquals(10, FleetExchange.sampledReport(count("k", 3), chance, evenShare).count());
    // 1 of the share 2: reported as 6.67 with chance 1/2, expected 3.33 per draw
    assertMean(1 / chance, 200_000, () -> FleetExchange.sampledReport(count("k", 1), chance, 2));
    // above the share: 13.33, always reported, 13 or 14
    assertMean(4 / chance, 100_000, () -> FleetExchange.sampledReport(count("k", 4), chance, 2));
  }

  /** The mean report over {@code draws} draws (none counting 0) is within 5 sigma of expected. */
  private static void assertMean(double expected, int draws, Supplier<KeyCount> draw) {
    double sum = 0;
    double squares = 0;
    for (int i = 0; i < draws; i++) {
      KeyCount report = draw.get();
      long value = report == null ? 0 : report.count();
      sum += value;
      squares += (double) value * value;
    }
    double mean = sum / draws;
    double sigmaOfMean = Math.sqrt(Math.max(squares / draws - mean * mean, 1e-12) / draws);
    assertTrue(
        Math.abs(mean - expected) < 5 * sigmaOfMean + 1e-9,
        () -> "mean " + mean + " against " + expected + " (sigma " + sigmaOfMean + ")");
  }

  private static void sampleAFleet(RespClient client) throws Exception {
    FleetAggregate aggregate = new FleetAggregate(WINDOW, THRESHOLD, FleetExchange.MAX_KEYS);
    FleetShards shards = FleetShards.of(client, "sampling:");
    List<FleetExchange> fleet = new ArrayList<>();
    for (int i = 0; i < INSTANCES; i++) {
      fleet.add(new FleetExchange(client, shards, System::nanoTime, SAMPLE));
    }

    // two rounds in which everyone reports, then the fleet's size is known: two sampled rounds,
    // the second with a key that appears on every instance, and the round that reads it back
    List<Round> rounds = new ArrayList<>();
    for (int r = 1; r <= 5; r++) {
      rounds.add(round(client, aggregate, fleet, r == 4));
    }
    Round last = rounds.get(4);

    for (int r = 2; r <= 3; r++) {
      assertEquals(
          0, rounds.get(r).readersThatRead, "round " + (r + 1) + ": readers whose counts held");
    }
    assertEquals(INSTANCES, last.seeingRising, "every instance sees the key that appeared");
    assertTrue(
        last.drawn > 30 && last.drawn < 70, last.drawn + " of 100 reported, about half expected");
    assertTrue(
        last.reporters > 70 && last.reporters < 130,
        "the fleet's size estimated from the sample: " + last.reporters);
    assertTrue(
        last.even > 56_000 && last.even < 104_000,
        "80,000 accesses spread evenly estimated as " + last.even);
    assertFalse(last.halfHot, "a key at half the threshold is not hot");
    assertEquals(50_000, last.few, "five instances' key is counted exactly, not sampled");
  }

  /** What a round's instances did, and what its last drawn instance read back. */
  private static final class Round {
    long drawn;
    long readersThatRead;
    long seeingRising;
    long reporters;
    long even = -1;
    long few = -1;
    boolean halfHot;
  }

  /** Every instance exchanges once, early in one window by Redis' clock. */
  private static Round round(
      RespClient client, FleetAggregate aggregate, List<FleetExchange> fleet, boolean rising)
      throws Exception {
    long now = redisMillis(client);
    Thread.sleep(WINDOW.toMillis() - now % WINDOW.toMillis() + 20);
    Round round = new Round();
    long firstWindow = -1;
    FleetExchange.Result result = null;
    for (int i = 0; i < fleet.size(); i++) {
      List<KeyCount> counts = new ArrayList<>();
      counts.add(count("even", 800));
      counts.add(count("half", 200));
      if (i < 5) {
        counts.add(count("few", 10_000));
      }
      if (rising) {
        counts.add(count("rising", 1_000));
      }
      result = fleet.get(i).exchange(aggregate, counts);
      firstWindow = i == 0 ? result.window : firstWindow;
      if (result.drawn) {
        round.drawn++;
        lastDrawn(round, result);
      } else if (i >= 5 && result.read) {
        round.readersThatRead++;
      }
      if (result.hot.stream().anyMatch(key -> Arrays.equals(key.key(), bytes("rising")))) {
        round.seeingRising++;
      }
    }
    assertEquals(firstWindow, result.window, "a round's exchanges all ran in one window");
    return round;
  }

  private static void lastDrawn(Round round, FleetExchange.Result result) {
    round.reporters = result.reporters;
    round.halfHot = false;
    for (KeyCount key : result.hot) {
      String name = new String(key.key(), StandardCharsets.UTF_8);
      if (name.equals("even")) {
        round.even = key.count();
      } else if (name.equals("few")) {
        round.few = key.count();
      } else if (name.equals("half")) {
        round.halfHot = true;
      }
    }
  }

  private static long redisMillis(RespClient client) throws Exception {
    List<?> time = (List<?>) client.call(bytes("TIME"));
    return Long.parseLong(new String((byte[]) time.get(0), StandardCharsets.US_ASCII)) * 1000
        + Long.parseLong(new String((byte[]) time.get(1), StandardCharsets.US_ASCII)) / 1000;
  }

  private static KeyCount count(String key, long count) {
    return new KeyCount(bytes(key), count);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
