package io.hotkey.agent.fleet;

import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.ClusterSlots;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the fleet's counts of each key go: one shard, {@code <namespace>{fleet}}, on a single
 * server; on a Cluster one shard per master, {@code <namespace>{fleet:<n>}} with the smallest
 * {@code n} whose slot that master serves, so that every master carries an equal share and no slot
 * carries the fleet alone. A key belongs to the shard its {@link KeyHashes#hash} picks, the same on
 * every instance that sees the same masters; while a resharding makes instances disagree, a key's
 * counts are split for a window or two, which delays its promotion and promotes nothing wrongly.
 */
public final class FleetShards {
  private static final byte[] CLUSTER = RespConnection.bytes("CLUSTER");
  private static final byte[] SLOTS = RespConnection.bytes("SLOTS");

  private final List<byte[]> bases;
  private final List<String> masters;

  private FleetShards(List<byte[]> bases, List<String> masters) {
    this.bases = bases;
    this.masters = masters;
  }

  /**
   * The shards of the server or Cluster {@code client} reaches, asking it {@code CLUSTER SLOTS}.
   */
  public static FleetShards of(RespClient client, String namespace) throws IOException {
    Object reply = client.call(CLUSTER, SLOTS);
    if (reply instanceof RespError) {
      // cluster support disabled: a single server
      return new FleetShards(List.of(bytes(namespace + "{fleet}")), List.of("the server"));
    }
    List<ClusterSlots.Range> ranges;
    try {
      ranges = ClusterSlots.parse(reply, "");
    } catch (RuntimeException e) {
      throw new IOException("unreadable CLUSTER SLOTS reply: " + reply, e);
    }
    if (ranges.isEmpty()) {
      throw new IOException("the Cluster serves no slot yet");
    }
    ranges.sort(Comparator.comparingInt(range -> range.first));
    Map<String, List<ClusterSlots.Range>> byMaster = new LinkedHashMap<>();
    for (ClusterSlots.Range range : ranges) {
      byMaster.computeIfAbsent(range.host + ":" + range.port, m -> new ArrayList<>()).add(range);
    }
    List<byte[]> bases = new ArrayList<>();
    for (List<ClusterSlots.Range> served : byMaster.values()) {
      bases.add(bytes(namespace + "{" + tagServedBy(served) + "}"));
    }
    return new FleetShards(List.copyOf(bases), List.copyOf(byMaster.keySet()));
  }

  /** The first {@code fleet:<n>} whose slot is one of {@code served}. */
  private static String tagServedBy(List<ClusterSlots.Range> served) {
    for (int n = 0; ; n++) {
      String tag = "fleet:" + n;
      int slot = ClusterSlots.slot(bytes(tag));
      for (ClusterSlots.Range range : served) {
        if (slot >= range.first && slot <= range.last) {
          return tag;
        }
      }
    }
  }

  /** How many shards: one per master. */
  public int count() {
    return bases.size();
  }

  /** The shard {@code key}'s counts go to. */
  public int of(byte[] key) {
    return Math.floorMod(KeyHashes.hash(key), bases.size());
  }

  /** The prefix of shard {@code shard}'s keys, hash tag included. */
  public byte[] base(int shard) {
    return bases.get(shard);
  }

  /** The master ({@code host:port}) serving shard {@code shard}, as the Cluster reported it. */
  public String master(int shard) {
    return masters.get(shard);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
