package io.hotkey.agent.fleet;

import io.hotkey.agent.redis.resp.RespClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * One instance's side of the fleet's count, once per window. Which keys it reports: those whose
 * rate here could make them fleet-hot given how many instances the fleet has (at least half the
 * threshold divided by that many, at most {@link #MAX_KEYS}). Whether it reports them: in a fleet
 * of up to {@link #REPORTERS_PER_WINDOW} instances every instance reports every window; in a larger
 * one each instance reports a window with chance p = {@link #REPORTERS_PER_WINDOW} / instances,
 * drawn from a hash of its own random id and the window (no coordination), and then reports its
 * counts times 1 / p, so that the shard's sums stay unbiased estimates of the fleet's. A key this
 * instance alone sees at {@link #ALWAYS_REPORTED_SHARES} times its share of the threshold is
 * reported every window, unscaled, unless the fleet already counts it at twice the threshold: a key
 * read on a few instances only is thus counted exactly instead of by a sample that may hold none or
 * several of them. In a sampled fleet a drawn instance reports a key it counted below the key's
 * even share of the threshold (threshold / instances) as that share, with chance count / share, and
 * else not at all: unbiased, and up to half of such keys cost Redis nothing. An instance that
 * reports nothing reads the shard's hot list with one {@code GET} (falling back to the script when
 * the window's list is not built yet), and only in the windows {@link HotListReads} says it must:
 * otherwise it keeps the lists it last read. Reports go through one {@link FleetAggregate} call per
 * {@link FleetShards shard}, each reporting the window just ended at most once. Not thread-safe:
 * one instance's exchanges run one after another.
 */
public final class FleetExchange {
  /** Most keys one instance reports per window, and most fleet-hot keys read back per shard. */
  public static final int MAX_KEYS = 100;

  /**
   * Before the fleet's size is known, a key is reported when this instance alone saw a thousandth
   * of the fleet threshold.
   */
  static final long INSTANCES_ASSUMED_AT_FIRST = 1000;

  /**
   * About how many instances report each window: a key spread evenly over the fleet is estimated
   * within about 1 / sqrt(250), 6.3%, of its sum (one standard deviation).
   */
  static final int REPORTERS_PER_WINDOW = 250;

  /**
   * A key this instance sees at this many times its even share of the threshold (threshold /
   * instances) is reported every window: it bounds how much one sampled instance can move a key's
   * estimate.
   */
  static final int ALWAYS_REPORTED_SHARES = 8;

  private final RespClient client;
  private final FleetShards shards;
  private final long id = ThreadLocalRandom.current().nextLong();
  private final LongSupplier nanoTime;
  private final int reportersPerWindow;
  private final Map<String, Long> lastReported = new HashMap<>();
  private final HotListReads reads = new HotListReads();

  /** Each shard's hot list as last read; null before the first. */
  private final FleetAggregate.HotList[] lists;

  /** The fleet's estimated size as of the last hot list; 0 before the first. */
  private long instances;

  /** The last hot list's keys, with the fleet's count. */
  private Map<String, Long> lastHot = Map.of();

  /** Redis' window and offset at the last script answer, and this JVM's time then. */
  private long syncedWindow = -1;

  private long syncedOffsetMillis;
  private long syncedAtNanos;

  public FleetExchange(RespClient client, FleetShards shards) {
    this(client, shards, System::nanoTime, REPORTERS_PER_WINDOW);
  }

  /** With a smaller sample, a test's fleet of a hundred samples as a real one of thousands. */
  FleetExchange(
      RespClient client, FleetShards shards, LongSupplier nanoTime, int reportersPerWindow) {
    this.client = client;
    this.shards = shards;
    this.nanoTime = nanoTime;
    this.reportersPerWindow = reportersPerWindow;
    this.lists = new FleetAggregate.HotList[shards.count()];
  }

  /**
   * The least rate per second at which this instance reports a key: with {@code instances} in the
   * fleet, a key reaches the threshold only through instances that see at least its share, and half
   * of that share keeps a key most instances see a little less of.
   */
  public double reportFloorPerSecond(long thresholdPerSecond, long windowMillis) {
    return Math.max(
        1000.0 / windowMillis,
        instances > 0
            ? thresholdPerSecond / (2.0 * instances)
            : (double) thresholdPerSecond / INSTANCES_ASSUMED_AT_FIRST);
  }

  /** The chance that this instance reports a window: 1 until the fleet is known to be large. */
  double reportingChance() {
    return instances <= reportersPerWindow ? 1 : (double) reportersPerWindow / instances;
  }

  /**
   * Reports {@code counts} (already above {@link #reportFloorPerSecond}, at most {@link #MAX_KEYS})
   * as its sampling asks, and returns what every shard answered.
   */
  public Result exchange(FleetAggregate aggregate, List<KeyCount> counts) throws IOException {
    long windowMillis = aggregate.windowMillis();
    long window = -1;
    long offsetMillis = -1;
    if (syncedWindow >= 0) {
      long at =
          syncedWindow * windowMillis
              + syncedOffsetMillis
              + (nanoTime.getAsLong() - syncedAtNanos) / 1_000_000;
      window = at / windowMillis;
      offsetMillis = at % windowMillis;
    }
    double chance = syncedWindow < 0 ? 1 : reportingChance();
    boolean drawn = chance >= 1 || drawUnit(window) < chance;
    long alwaysFrom =
        chance >= 1
            ? Long.MAX_VALUE
            : ALWAYS_REPORTED_SHARES * aggregate.thresholdPerWindow() / instances;
    double evenShare = chance >= 1 ? 0 : (double) aggregate.thresholdPerWindow() / instances;
    List<List<KeyCount>> byShard = new ArrayList<>();
    for (int s = 0; s < shards.count(); s++) {
      byShard.add(new ArrayList<>());
    }
    for (KeyCount count : counts) {
      String name = new String(count.key(), StandardCharsets.ISO_8859_1);
      boolean always =
          count.count() >= alwaysFrom
              && lastHot.getOrDefault(name, 0L) < 2 * aggregate.thresholdPerWindow();
      if (always) {
        byShard.get(shards.of(count.key())).add(count);
      } else if (drawn) {
        KeyCount report = sampledReport(count, chance, evenShare);
        if (report != null) {
          byShard.get(shards.of(count.key())).add(report);
        }
      }
    }
    boolean readAll = drawn || reads.due(window);
    boolean clockFromRedis = false;
    for (int s = 0; s < shards.count(); s++) {
      String shard = new String(shards.base(s), StandardCharsets.UTF_8);
      boolean reports = drawn || !byShard.get(s).isEmpty();
      if (!reports && !readAll && lists[s] != null) {
        continue;
      }
      FleetAggregate.HotList list = null;
      if (!reports) {
        list = aggregate.read(client, shards.base(s), window);
      }
      if (list == null) {
        FleetAggregate.Exchange exchange =
            aggregate.exchange(
                client,
                shards.base(s),
                lastReported.getOrDefault(shard, -1L),
                drawn ? 1 / chance : 0,
                byShard.get(s));
        lastReported.put(shard, exchange.reported);
        syncedWindow = exchange.window;
        syncedOffsetMillis = exchange.offsetMillis;
        syncedAtNanos = nanoTime.getAsLong();
        if (!clockFromRedis) {
          clockFromRedis = true;
          window = exchange.window;
          offsetMillis = exchange.offsetMillis;
        }
        list = exchange.list;
      }
      lists[s] = list;
    }
    Map<String, KeyCount> hot = new LinkedHashMap<>();
    long reporters = 0;
    for (FleetAggregate.HotList list : lists) {
      reporters = Math.max(reporters, list.reporters);
      for (KeyCount key : list.hot) {
        hot.put(new String(key.key(), StandardCharsets.ISO_8859_1), key);
      }
    }
    Map<String, Long> hotCounts = new HashMap<>();
    hot.forEach((name, key) -> hotCounts.put(name, key.count()));
    lastHot = hotCounts;
    Map<String, Long> seen = new HashMap<>();
    for (KeyCount count : counts) {
      seen.put(new String(count.key(), StandardCharsets.ISO_8859_1), count.count());
    }
    // the floor as this exchange's keys were chosen, before the new lists change the fleet's size
    long floorPerWindow =
        Math.max(
            1,
            aggregate.thresholdPerWindow()
                / (instances > 0 ? 2 * instances : INSTANCES_ASSUMED_AT_FIRST));
    instances = reporters;
    reads.exchanged(
        window,
        readAll,
        seen,
        floorPerWindow,
        hotCounts.keySet(),
        HotListReads.refreshWindows(instances, reportersPerWindow));
    return new Result(
        window, offsetMillis, reporters, drawn, readAll, new ArrayList<>(hot.values()));
  }

  /**
   * What a drawn instance reports of a key it counted {@code count} times: the count times 1 /
   * {@code chance}; in a sampled fleet, a count below the key's even share of the threshold is
   * instead reported as that share with chance count / share, and else not at all. Either way its
   * expected report is count / chance, rounded down or up at random in proportion to the fraction,
   * so the sums stay unbiased whatever the threshold and the fleet's size, while a key counted
   * between the report floor (half the share) and the share costs Redis nothing with chance 1 -
   * count / share; the added variance is none for a key near the threshold (count near its share)
   * and doubles that of a key at half of it. Null: nothing to report.
   */
  static KeyCount sampledReport(KeyCount count, double chance, double evenShare) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    double expected = count.count() / chance;
    if (count.count() < evenShare) {
      if (random.nextDouble() * evenShare >= count.count()) {
        return null;
      }
      expected = evenShare / chance;
    }
    long whole = (long) expected;
    long reported = whole + (random.nextDouble() < expected - whole ? 1 : 0);
    return reported == 0 ? null : new KeyCount(count.key(), reported);
  }

  /** A number in [0, 1) drawn from this instance's id and {@code window} alone. */
  private double drawUnit(long window) {
    long z = id + window * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return (z >>> 11) * 0x1.0p-53;
  }

  /** What one exchange over every shard returned. */
  public static final class Result {
    /** Redis' number of the window the exchange ran in. */
    public final long window;

    /** How far into that window, by Redis' clock. */
    public final long offsetMillis;

    /** How many instances the fleet had a window ago (estimated from a sample in a large one). */
    public final long reporters;

    /** Whether this instance was drawn to report the window just ended. */
    public final boolean drawn;

    /**
     * Whether this exchange read every shard's hot list; else some are the ones last read, at most
     * {@link HotListReads#refreshWindows} windows old.
     */
    public final boolean read;

    /** The fleet-hot keys of every shard, with the fleet's count in their window. */
    public final List<KeyCount> hot;

    Result(
        long window,
        long offsetMillis,
        long reporters,
        boolean drawn,
        boolean read,
        List<KeyCount> hot) {
      this.window = window;
      this.offsetMillis = offsetMillis;
      this.reporters = reporters;
      this.drawn = drawn;
      this.read = read;
      this.hot = hot;
    }
  }
}
