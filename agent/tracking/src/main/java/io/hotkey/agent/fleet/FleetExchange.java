package io.hotkey.agent.fleet;

import io.hotkey.agent.redis.resp.RespClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One instance's side of the fleet's count, once per window: which keys it reports (those whose
 * rate here could make them fleet-hot given how many instances reported a window ago: at least half
 * the threshold divided by that many, at most {@link #MAX_KEYS}), and one {@link FleetAggregate}
 * call per {@link FleetShards shard}, each reporting the window just ended at most once. Not
 * thread-safe: one instance's exchanges run one after another.
 */
public final class FleetExchange {
  /** Most keys one instance reports per window, and most fleet-hot keys read back per shard. */
  public static final int MAX_KEYS = 100;

  /**
   * Before the fleet's size is known, a key is reported when this instance alone saw a thousandth
   * of the fleet threshold.
   */
  static final long INSTANCES_ASSUMED_AT_FIRST = 1000;

  private final RespClient client;
  private final FleetShards shards;
  private final Map<String, Long> lastReported = new HashMap<>();
  private long instances;

  public FleetExchange(RespClient client, FleetShards shards) {
    this.client = client;
    this.shards = shards;
  }

  /**
   * The least rate per second at which this instance reports a key: with {@code instances}
   * reporting, a key reaches the threshold only through instances that see at least its share, and
   * half of that share keeps a key most instances see a little less of.
   */
  public double reportFloorPerSecond(long thresholdPerSecond, long windowMillis) {
    return Math.max(
        1000.0 / windowMillis,
        instances > 0
            ? thresholdPerSecond / (2.0 * instances)
            : (double) thresholdPerSecond / INSTANCES_ASSUMED_AT_FIRST);
  }

  /**
   * Reports {@code counts} (already above {@link #reportFloorPerSecond}, at most {@link #MAX_KEYS})
   * and returns what every shard answered.
   */
  public Result exchange(FleetAggregate aggregate, List<KeyCount> counts) throws IOException {
    List<List<KeyCount>> byShard = new ArrayList<>();
    for (int s = 0; s < shards.count(); s++) {
      byShard.add(new ArrayList<>());
    }
    for (KeyCount count : counts) {
      byShard.get(shards.of(count.key())).add(count);
    }
    Map<String, KeyCount> hot = new LinkedHashMap<>();
    long offsetMillis = -1;
    long window = -1;
    long reporters = 0;
    for (int s = 0; s < shards.count(); s++) {
      String shard = new String(shards.base(s), StandardCharsets.UTF_8);
      FleetAggregate.Exchange exchange =
          aggregate.exchange(
              client, shards.base(s), lastReported.getOrDefault(shard, -1L), byShard.get(s));
      lastReported.put(shard, exchange.reported);
      reporters = Math.max(reporters, exchange.reporters);
      if (offsetMillis < 0) {
        offsetMillis = exchange.offsetMillis;
        window = exchange.window;
      }
      for (KeyCount key : exchange.hot) {
        hot.put(new String(key.key(), StandardCharsets.ISO_8859_1), key);
      }
    }
    instances = reporters;
    return new Result(window, offsetMillis, reporters, new ArrayList<>(hot.values()));
  }

  /** What one exchange over every shard returned. */
  public static final class Result {
    /** Redis' number of the window the exchange ran in (its first shard's). */
    public final long window;

    /** How far into that window, by Redis' clock. */
    public final long offsetMillis;

    /** How many instances reported a window ago. */
    public final long reporters;

    /** The fleet-hot keys of every shard, with the fleet's count in their window. */
    public final List<KeyCount> hot;

    Result(long window, long offsetMillis, long reporters, List<KeyCount> hot) {
      this.window = window;
      this.offsetMillis = offsetMillis;
      this.reporters = reporters;
      this.hot = hot;
    }
  }
}
