package io.hotkey.agent.redis.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis Cluster's key-to-slot rule (CRC16/XMODEM of the key, or of its hash tag: the text between
 * the first <code>&#123;</code> and the next <code>&#125;</code> when not empty, modulo 16384) and
 * the reply of {@code CLUSTER SLOTS}.
 */
public final class ClusterSlots {
  public static final int COUNT = 16384;
  private static final int[] CRC16 = new int[256];

  static {
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      CRC16[i] = crc & 0xffff;
    }
  }

  private ClusterSlots() {}

  /** One range of slots and the master serving it. */
  public static final class Range {
    public final int first;
    public final int last;
    public final String host;
    public final int port;

    Range(int first, int last, String host, int port) {
      this.first = first;
      this.last = last;
      this.host = host;
      this.port = port;
    }
  }

  /** The slot {@code key} hashes to. */
  public static int slot(byte[] key) {
    int from = 0;
    int to = key.length;
    for (int open = 0; open < key.length; open++) {
      if (key[open] == '{') {
        for (int close = open + 1; close < key.length; close++) {
          if (key[close] == '}') {
            if (close > open + 1) {
              from = open + 1;
              to = close;
            }
            break;
          }
        }
        break;
      }
    }
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ CRC16[((crc >>> 8) ^ key[i]) & 0xff]) & 0xffff;
    }
    return crc & (COUNT - 1);
  }

  /**
   * The ranges of slots and their masters that {@code CLUSTER SLOTS} answered.
   *
   * @param reply {@code CLUSTER SLOTS}: per range its first and last slot, then the master's host,
   *     port and id, then the replicas'
   * @param askedHost the node asked, for a master whose host is reported empty (its own address)
   */
  public static List<Range> parse(Object reply, String askedHost) {
    if (!(reply instanceof List)) {
      throw new IllegalArgumentException("CLUSTER SLOTS answered " + reply);
    }
    List<Range> ranges = new ArrayList<>();
    for (Object entry : (List<?>) reply) {
      List<?> range = (List<?>) entry;
      List<?> master = (List<?>) range.get(2);
      String host = text(master.get(0));
      ranges.add(
          new Range(
              ((Long) range.get(0)).intValue(),
              ((Long) range.get(1)).intValue(),
              host.isEmpty() || host.equals("?") ? askedHost : host,
              ((Long) master.get(1)).intValue()));
    }
    return ranges;
  }

  private static String text(Object value) {
    return value instanceof byte[]
        ? new String((byte[]) value, StandardCharsets.UTF_8)
        : String.valueOf(value);
  }
}
