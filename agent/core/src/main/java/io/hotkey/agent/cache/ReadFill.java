package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One in-progress read of a hot entry from Redis. Other threads that miss the same entry meanwhile
 * wait for it instead of sending their own request (single flight), but only if nothing was written
 * to its keys between the fill's start and theirs: otherwise the fill may carry a value older than
 * a write they are entitled to see, and they go to Redis themselves.
 */
public final class ReadFill {
  final CacheKey key;
  final int[] keyHashes;
  final long[] stamp;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile CachedReply reply;
  private final long startNanos;
  private final ParkedReads parked = new ParkedReads();

  /** The entry this fill refreshes ahead of its expiry; null for a fill of a missing entry. */
  CachedReply refreshing;

  /** The server the fill's reply is read from, once the client's adapter knows it. */
  private volatile RedisEndpoint node;

  ReadFill(CacheKey key, int[] keyHashes, long[] stamp, long startNanos) {
    this.key = key;
    this.startNanos = startNanos;
    this.keyHashes = keyHashes;
    this.stamp = stamp;
  }

  /**
   * Tells the fill which server its command was written to (the last one, if it was written again).
   */
  public void readThrough(RedisEndpoint server) {
    this.node = server;
  }

  RedisEndpoint node() {
    return node;
  }

  boolean startedBefore(long nanos) {
    return startNanos - nanos < 0;
  }

  /**
   * Reads of non-blocking clients waiting for this fill's reply (see {@link
   * NearCache#lookupNoWait}).
   */
  public ParkedReads parked() {
    return parked;
  }

  void publish(CachedReply reply) {
    this.reply = reply;
  }

  void release() {
    done.countDown();
  }

  /** The fill's reply if it applies to a reader that took {@code readerStamp}, or null. */
  CachedReply await(long[] readerStamp, long timeoutNanos) {
    if (!Arrays.equals(stamp, readerStamp)) {
      return null;
    }
    try {
      if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
        return null;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    return reply;
  }
}
