package io.hotkey.agent.fleet;

import io.hotkey.agent.redis.resp.LuaScript;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet's shared count of key accesses, kept in the Redis every instance already uses: per
 * {@link FleetShards shard} one sorted set per window, {@code <shard>:<window number>}, with
 * windows numbered from Redis' own clock so that instances' clocks never matter, and a count of the
 * instances that reported into it, {@code <shard>:<window number>:reporters}. Once per window each
 * instance makes one script call per shard: it adds what it counted in the window that just ended
 * (unless it already did), and reads back the keys whose summed count reached the threshold in that
 * window or the one before (the older one is complete: every instance reported into it a window
 * ago), with how many instances reported into the older one. Each key expires two windows after its
 * window ended. A shard's keys share its hash tag, so on a Cluster the call runs on its master.
 */
public final class FleetAggregate {
  private static final LuaScript EXCHANGE =
      new LuaScript(
          "local t = redis.call('TIME')\n"
              + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
              + "local window = tonumber(ARGV[1])\n"
              + "local n = math.floor(now / window)\n"
              + "local ended = KEYS[1] .. ':' .. (n - 1)\n"
              + "local older = KEYS[1] .. ':' .. (n - 2)\n"
              + "local reports = 0\n"
              + "if n - 1 > tonumber(ARGV[4]) then\n"
              + "  reports = 1\n"
              + "  local expiry = (n + 2) * window\n"
              + "  if #ARGV > 4 then\n"
              + "    for i = 5, #ARGV, 2 do\n"
              + "      redis.call('ZINCRBY', ended, ARGV[i + 1], ARGV[i])\n"
              + "    end\n"
              + "    redis.call('PEXPIREAT', ended, expiry)\n"
              + "  end\n"
              + "  if redis.call('INCR', ended .. ':reporters') == 1 then\n"
              + "    redis.call('PEXPIREAT', ended .. ':reporters', expiry)\n"
              + "  end\n"
              + "end\n"
              + "local function hot(name)\n"
              + "  return redis.call('ZRANGEBYSCORE', name, ARGV[2], '+inf', 'WITHSCORES',"
              + " 'LIMIT', 0, ARGV[3])\n"
              + "end\n"
              + "local reporters = tonumber(redis.call('GET', older .. ':reporters') or 0)\n"
              + "return {n, now % window, reports, reporters, hot(ended), hot(older)}\n");

  private final long windowMillis;
  private final long thresholdPerWindow;
  private final int maxHot;

  /**
   * @param thresholdPerSecond accesses per second, summed over every instance, that make a key hot
   * @param maxHot most fleet-hot keys read back from one shard at once
   */
  public FleetAggregate(Duration window, long thresholdPerSecond, int maxHot) {
    this.windowMillis = window.toMillis();
    this.thresholdPerWindow = Math.max(1, thresholdPerSecond * windowMillis / 1000);
    this.maxHot = maxHot;
  }

  /** How many accesses in one window make a key fleet-hot. */
  public long thresholdPerWindow() {
    return thresholdPerWindow;
  }

  /**
   * Adds this instance's counts of the window that just ended to one shard, unless this instance
   * already reported that window there, and returns what the fleet sees in that shard.
   *
   * @param shard the shard's {@link FleetShards#base}
   * @param lastReported the window this instance last reported into this shard; -1: none
   * @param counts the keys of this shard only
   */
  public Exchange exchange(
      RespClient client, byte[] shard, long lastReported, List<KeyCount> counts)
      throws IOException {
    byte[][] args = new byte[4 + 2 * counts.size()][];
    args[0] = ascii(windowMillis);
    args[1] = ascii(thresholdPerWindow);
    args[2] = ascii(maxHot);
    args[3] = ascii(lastReported);
    for (int i = 0; i < counts.size(); i++) {
      args[4 + 2 * i] = counts.get(i).key();
      args[5 + 2 * i] = ascii(counts.get(i).count());
    }
    Object reply = client.eval(EXCHANGE, new byte[][] {shard}, args);
    if (reply instanceof RespError) {
      throw new IOException("the fleet aggregate script answered " + reply);
    }
    List<?> items = (List<?>) reply;
    Map<String, KeyCount> hot = new LinkedHashMap<>();
    addHot(hot, (List<?>) items.get(5));
    addHot(hot, (List<?>) items.get(4));
    long window = (Long) items.get(0);
    return new Exchange(
        window,
        (Long) items.get(1),
        (Long) items.get(2) == 1 ? window - 1 : lastReported,
        (Long) items.get(3),
        new ArrayList<>(hot.values()));
  }

  /** The later window's counts win: they are the fresher ones. */
  private static void addHot(Map<String, KeyCount> hot, List<?> keysAndScores) {
    for (int i = 0; i + 1 < keysAndScores.size(); i += 2) {
      byte[] key = (byte[]) keysAndScores.get(i);
      long count = (long) Double.parseDouble(text(keysAndScores.get(i + 1)));
      hot.put(new String(key, StandardCharsets.ISO_8859_1), new KeyCount(key, count));
    }
  }

  private static String text(Object reply) {
    return reply instanceof byte[]
        ? new String((byte[]) reply, StandardCharsets.US_ASCII)
        : String.valueOf(reply);
  }

  private static byte[] ascii(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  /** What one exchange with one shard returned. */
  public static final class Exchange {
    /** Redis' number of the window the exchange ran in. */
    public final long window;

    /** How far into that window, in milliseconds, by Redis' clock. */
    public final long offsetMillis;

    /** The window this instance has now reported into the shard (-1: none yet). */
    public final long reported;

    /** How many instances reported into the shard's complete window (the one before last). */
    public final long reporters;

    /** Keys at or above the threshold, with the fleet's count in their window. */
    public final List<KeyCount> hot;

    Exchange(long window, long offsetMillis, long reported, long reporters, List<KeyCount> hot) {
      this.window = window;
      this.offsetMillis = offsetMillis;
      this.reported = reported;
      this.reporters = reporters;
      this.hot = hot;
    }
  }
}
