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
 * The fleet's shared count of key accesses, kept in the Redis every instance already uses: one
 * sorted set per window, {@code <namespace>{fleet}:<window number>}, with windows numbered from
 * Redis' own clock so that instances' clocks never matter. Once per window each instance adds what
 * it counted in the window that just ended and, in the same script call, reads back the keys whose
 * summed count reached the threshold in that window or the one before (the older one is complete:
 * every instance reported into it a window ago). Each aggregate expires two windows after it ended.
 * All keys share one hash tag, so on a Cluster the script runs on the one node owning that slot.
 */
final class FleetAggregate {
  private static final LuaScript EXCHANGE =
      new LuaScript(
          "local t = redis.call('TIME')\n"
              + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
              + "local window = tonumber(ARGV[1])\n"
              + "local n = math.floor(now / window)\n"
              + "local ended = KEYS[1] .. ':' .. (n - 1)\n"
              + "if #ARGV > 3 then\n"
              + "  for i = 4, #ARGV, 2 do\n"
              + "    redis.call('ZINCRBY', ended, ARGV[i + 1], ARGV[i])\n"
              + "  end\n"
              + "  redis.call('PEXPIREAT', ended, (n + 2) * window)\n"
              + "end\n"
              + "local function hot(name)\n"
              + "  return redis.call('ZRANGEBYSCORE', name, ARGV[2], '+inf', 'WITHSCORES',"
              + " 'LIMIT', 0, ARGV[3])\n"
              + "end\n"
              + "return {n, now % window, hot(ended), hot(KEYS[1] .. ':' .. (n - 2))}\n");

  private final byte[] base;
  private final long windowMillis;
  private final long thresholdPerWindow;
  private final int maxHot;

  /**
   * @param namespace prefix of every key the agent writes ({@code hotkey.fleet.namespace})
   * @param thresholdPerSecond accesses per second, summed over every instance, that make a key hot
   * @param maxHot most fleet-hot keys read back at once
   */
  FleetAggregate(String namespace, Duration window, long thresholdPerSecond, int maxHot) {
    this.base = (namespace + "{fleet}").getBytes(StandardCharsets.UTF_8);
    this.windowMillis = window.toMillis();
    this.thresholdPerWindow = Math.max(1, thresholdPerSecond * windowMillis / 1000);
    this.maxHot = maxHot;
  }

  /** Adds this instance's counts of the window that just ended; returns what the fleet sees. */
  Exchange exchange(RespClient client, List<KeyCount> counts) throws IOException {
    byte[][] args = new byte[3 + 2 * counts.size()][];
    args[0] = ascii(windowMillis);
    args[1] = ascii(thresholdPerWindow);
    args[2] = ascii(maxHot);
    for (int i = 0; i < counts.size(); i++) {
      args[3 + 2 * i] = counts.get(i).key();
      args[4 + 2 * i] = ascii(counts.get(i).count());
    }
    Object reply = client.eval(EXCHANGE, new byte[][] {base}, args);
    if (reply instanceof RespError) {
      throw new IOException("the fleet aggregate script answered " + reply);
    }
    List<?> items = (List<?>) reply;
    Map<String, KeyCount> hot = new LinkedHashMap<>();
    addHot(hot, (List<?>) items.get(3));
    addHot(hot, (List<?>) items.get(2));
    return new Exchange((Long) items.get(0), (Long) items.get(1), new ArrayList<>(hot.values()));
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

  /** What one exchange returned. */
  static final class Exchange {
    /** Redis' number of the window the exchange ran in. */
    final long window;

    /** How far into that window, in milliseconds, by Redis' clock. */
    final long offsetMillis;

    /** Keys at or above the threshold, with the fleet's count in their window. */
    final List<KeyCount> hot;

    Exchange(long window, long offsetMillis, List<KeyCount> hot) {
      this.window = window;
      this.offsetMillis = offsetMillis;
      this.hot = hot;
    }
  }
}
