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

  RecordingEchoes(KeyVersions versions) {
    this.versions = versions;
  }

  @Override
  public boolean admits(RedisEndpoint node, byte[][] keys) {
    return OPEN.admits(node, keys);
  }

  @Override
  public boolean admitsWritten(byte[][] keys) {
    return OPEN.admitsWritten(keys);
  }

  @Override
  public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
    Expected echo = new Expected(node, new String(key, StandardCharsets.UTF_8));
    expected.add(echo);
    return echo;
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
