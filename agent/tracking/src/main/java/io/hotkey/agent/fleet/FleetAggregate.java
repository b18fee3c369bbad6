package io.hotkey.agent.fleet;

import io.hotkey.agent.redis.resp.LuaScript;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fleet's shared count of key accesses, kept in the Redis every instance already uses: per
 * {@link FleetShards shard} one sorted set per window, {@code <shard>:<window number>}, with
 * windows numbered from Redis' own clock so that instances' clocks never matter, and a count of the
 * instances that reported into it, {@code <shard>:<window number>:reporters}. Once per window each
 * instance makes one script call per shard: it adds what it counted in the window that just ended
 * (unless it already did), and reads back the keys whose summed count reached the threshold in the
 * window before that one, which is complete (every instance reported into it in the window after
 * it), with how many instances reported into it. The first call of a window turns that complete
 * window's hot keys into one string, {@code <shard>:<window number>:hot}, which every later call of
 * the window returns as it is: a fleet's reads cost Redis one range query per shard and window.
 * Each key expires two windows after its window ended, set only by the call that may have created
 * it (its first count came back equal to what the call added: a new sorted set holds only new
 * members; set at once, so that a script failing later leaves no key without one), since the rest
 * of the window's calls would set the same instant again. A shard's keys share its hash tag, so on
 * a Cluster the call runs on its master.
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
              + "local weight = tonumber(ARGV[5])\n"
              + "local reports = 0\n"
              + "if n - 1 > tonumber(ARGV[4]) and (weight > 0 or #ARGV > 5) then\n"
              + "  reports = 1\n"
              + "  local expiry = (n + 2) * window\n"
              + "  if #ARGV > 5 then\n"
              + "    local first = redis.call('ZINCRBY', ended, ARGV[7], ARGV[6])\n"
              + "    if tonumber(first) <= tonumber(ARGV[7]) then\n"
              + "      redis.call('PEXPIREAT', ended, expiry)\n"
              + "    end\n"
              + "    for i = 8, #ARGV, 2 do\n"
              + "      redis.call('ZINCRBY', ended, ARGV[i + 1], ARGV[i])\n"
              + "    end\n"
              + "  end\n"
              + "  if weight > 0 then\n"
              + "    local sum = redis.call('INCRBYFLOAT', ended .. ':reporters', ARGV[5])\n"
              + "    if tonumber(sum) <= weight * 1.000001 then\n"
              + "      redis.call('PEXPIREAT', ended .. ':reporters', expiry)\n"
              + "    end\n"
              + "  end\n"
              + "end\n"
              + "local hotKey = older .. ':hot'\n"
              + "local hot = redis.call('GET', hotKey)\n"
              + "if not hot then\n"
              + "  local range = redis.call('ZRANGEBYSCORE', older, ARGV[2], '+inf', 'WITHSCORES',"
              + " 'LIMIT', 0, ARGV[3])\n"
              + "  local parts = {redis.call('GET', older .. ':reporters') or '0', '\\n'}\n"
              + "  for i = 1, #range, 2 do\n"
              + "    parts[#parts + 1] = #range[i] .. ':' .. range[i] .. range[i + 1] .. '\\n'\n"
              + "  end\n"
              + "  hot = table.concat(parts)\n"
              + "  redis.call('SET', hotKey, hot)\n"
              + "  redis.call('PEXPIREAT', hotKey, (n + 1) * window)\n"
              + "end\n"
              + "return {n, now % window, reports, hot}\n");

  private static final byte[] GET = "GET".getBytes(StandardCharsets.US_ASCII);

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

  /** How long one window lasts. */
  public long windowMillis() {
    return windowMillis;
  }

  /** How many accesses in one window make a key fleet-hot. */
  public long thresholdPerWindow() {
    return thresholdPerWindow;
  }

  /**
   * Adds this instance's counts of the window that just ended to one shard, as one instance of a
   * fleet where every instance reports, unless this instance already reported that window there,
   * and returns what the fleet sees in that shard.
   *
   * @param shard the shard's {@link FleetShards#base}
   * @param lastReported the window this instance last reported into this shard; -1: none
   * @param counts the keys of this shard only
   */
  public Exchange exchange(
      RespClient client, byte[] shard, long lastReported, List<KeyCount> counts)
      throws IOException {
    return exchange(client, shard, lastReported, 1, counts);
  }

  /**
   * Adds counts of the window that just ended to one shard, unless this instance already reported
   * that window there, and returns what the fleet sees in that shard.
   *
   * @param instancesStoodFor how many instances this report stands for in the fleet's count of its
   *     instances: 1 / the chance that this instance was drawn to report the window; 0 for a report
   *     of keys it reports whether drawn or not, or for a read that reports nothing
   * @param counts the keys of this shard only, already scaled as their sampling asks
   */
  public Exchange exchange(
      RespClient client,
      byte[] shard,
      long lastReported,
      double instancesStoodFor,
      List<KeyCount> counts)
      throws IOException {
    byte[][] args = new byte[5 + 2 * counts.size()][];
    args[0] = ascii(windowMillis);
    args[1] = ascii(thresholdPerWindow);
    args[2] = ascii(maxHot);
    args[3] = ascii(lastReported);
    args[4] = Double.toString(instancesStoodFor).getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < counts.size(); i++) {
      args[5 + 2 * i] = counts.get(i).key();
      args[6 + 2 * i] = ascii(counts.get(i).count());
    }
    Object reply = client.eval(EXCHANGE, new byte[][] {shard}, args);
    if (reply instanceof RespError) {
      throw new IOException("the fleet aggregate script answered " + reply);
    }
    List<?> items = (List<?>) reply;
    long window = (Long) items.get(0);
    return new Exchange(
        window,
        (Long) items.get(1),
        (Long) items.get(2) == 1 ? window - 1 : lastReported,
        HotList.parse((byte[]) items.get(3)));
  }

  /**
   * The hot list an exchange of window {@code window} returns, read with one {@code GET} and no
   * script: null until the window's first exchange with the shard has built it.
   */
  public HotList read(RespClient client, byte[] shard, long window) throws IOException {
    byte[] key =
        (new String(shard, StandardCharsets.UTF_8) + ":" + (window - 2) + ":hot")
            .getBytes(StandardCharsets.UTF_8);
    Object reply = client.callFor(key, GET, key);
    if (reply instanceof RespError) {
      throw new IOException("reading the fleet's hot list answered " + reply);
    }
    return reply == null ? null : HotList.parse((byte[]) reply);
  }

  /** The hot list as the script keeps it: per key {@code <length>:<key><count>\n}. */
  static List<KeyCount> hotKeys(byte[] list) throws IOException {
    return hotKeys(list, 0);
  }

  private static List<KeyCount> hotKeys(byte[] list, int from) throws IOException {
    List<KeyCount> hot = new ArrayList<>();
    int at = from;
    try {
      while (at < list.length) {
        int colon = at;
        while (list[colon] != ':') {
          colon++;
        }
        int length = Integer.parseInt(new String(list, at, colon - at, StandardCharsets.US_ASCII));
        byte[] key = Arrays.copyOfRange(list, colon + 1, colon + 1 + length);
        int end = colon + 1 + length;
        while (list[end] != '\n') {
          end++;
        }
        String score =
            new String(
                list, colon + 1 + length, end - colon - 1 - length, StandardCharsets.US_ASCII);
        hot.add(new KeyCount(key, (long) Double.parseDouble(score)));
        at = end + 1;
      }
    } catch (RuntimeException e) {
      throw new IOException("unreadable fleet hot list", e);
    }
    return hot;
  }

  private static byte[] ascii(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * One shard's complete window: how many instances reported into it (estimated, when only a sample
   * of them reports) and its keys at or above the threshold, with the fleet's count.
   */
  public static final class HotList {
    /** Instances that reported into the window, each sampled one standing for 1 / its chance. */
    public final long reporters;

    /** Keys at or above the threshold in the window, with the fleet's (estimated) count. */
    public final List<KeyCount> hot;

    HotList(long reporters, List<KeyCount> hot) {
      this.reporters = reporters;
      this.hot = hot;
    }

    /** {@code <reporters>\n} then the {@link #hotKeys} list. */
    static HotList parse(byte[] value) throws IOException {
      int newline = 0;
      while (newline < value.length && value[newline] != '\n') {
        newline++;
      }
      if (newline == value.length) {
        throw new IOException("unreadable fleet hot list: no reporter count");
      }
      try {
        double reporters =
            Double.parseDouble(new String(value, 0, newline, StandardCharsets.US_ASCII));
        return new HotList(Math.round(reporters), hotKeys(value, newline + 1));
      } catch (NumberFormatException e) {
        throw new IOException("unreadable fleet reporter count", e);
      }
    }
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

    /** Keys at or above the threshold in the complete window, with the fleet's count there. */
    public final List<KeyCount> hot;

    /** The complete window's list, as {@link #read} returns it. */
    public final HotList list;

    Exchange(long window, long offsetMillis, long reported, HotList list) {
      this.window = window;
      this.offsetMillis = offsetMillis;
      this.reported = reported;
      this.reporters = list.reporters;
      this.hot = list.hot;
      this.list = list;
    }
  }
}
