package io.hotkey.agent.core;

import io.hotkey.agent.cache.FillGate;
import io.hotkey.agent.cache.KeyVersions;
import io.hotkey.agent.cache.OwnWriteEcho;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A gate that admits every reply, like {@link FillGate#OPEN}, and records the reports the gateways
 * expect for their own writes, and how each one was settled.
 */
public final class RecordingEchoes implements FillGate {
  private final KeyVersions versions;
  private final List<Expected> expected = new CopyOnWriteArrayList<>();
  private final List<String> admittedFrom = new CopyOnWriteArrayList<>();
  private volatile boolean holdReports;

  RecordingEchoes(KeyVersions versions) {
    this.versions = versions;
  }

  @Override
  public boolean admits(RedisEndpoint node, byte[][] keys) {
    admittedFrom.add(String.valueOf(node));
    return OPEN.admits(node, keys);
  }

  /** The server of every value admitted so far ("null" when unknown), in order. */
  public List<String> admittedFrom() {
    return List.copyOf(admittedFrom);
  }

  @Override
  public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
    Expected echo = new Expected(node, new String(key, StandardCharsets.UTF_8));
    expected.add(echo);
    return echo;
  }

  /**
   * From now on, a report of each expected write has arrived while the write was in flight: it is
   * applied when the write announces its invalidation, as tracking applies a held report.
   */
  public void holdReports() {
    holdReports = true;
  }

  /** Every expectation so far, in the order they were made. */
  public List<Expected> expected() {
    return List.copyOf(expected);
  }

  /** One expected report, as the gateway left it. */
  public final class Expected implements OwnWriteEcho {
    public final RedisEndpoint node;
    public final String key;
    private final int[] hashes;
    private volatile long[] stampAtSettle;
    private volatile String settled = "pending";

    Expected(RedisEndpoint node, String key) {
      this.node = node;
      this.key = key;
      this.hashes = new int[] {KeyHashes.hash(key.getBytes(StandardCharsets.UTF_8))};
    }

    /**
     * "pending", "cancelled", "invalidated" (announced, and the key's local invalidation followed),
     * "announced, but the key was not invalidated since" or "settled twice".
     */
    public String settled() {
      if (!settled.equals("invalidating")) {
        return settled;
      }
      return versions.isCurrent(stampAtSettle, hashes)
          ? "announced, but the key was not invalidated since"
          : "invalidated";
    }

    @Override
    public void invalidatingLocally() {
      stampAtSettle = versions.stamp(hashes);
      if (holdReports) {
        versions.bump(hashes[0]);
      }
      settle("invalidating");
    }

    @Override
    public void cancel() {
      settle("cancelled");
    }

    private void settle(String how) {
      settled = settled.equals("pending") ? how : "settled twice";
    }
  }
}
