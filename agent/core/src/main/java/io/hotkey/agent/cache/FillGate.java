package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * Decides whether a reply read from Redis may become a local entry, beyond its stamp being current:
 * with server-assisted invalidation, only a reply of a server that reports its keys' changes; and
 * whether entries may be served now: only once the changes reported so far have been applied.
 */
public interface FillGate {
  /** Every current reply may be stored: other processes' writes are bounded by the TTL alone. */
  FillGate OPEN =
      new FillGate() {
        @Override
        public boolean admits(RedisEndpoint node, byte[][] keys) {
          return true;
        }

        @Override
        public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
          return null;
        }
      };

  /**
   * A read's reply.
   *
   * @param node the server the reply was read from, or null when the client could not tell
   * @param keys the keys the reply depends on, or null when they are not all known
   */
  boolean admits(RedisEndpoint node, byte[][] keys);

  /**
   * A plain {@code SET key value} (it always changes its key, and Redis always reports it) is about
   * to be sent to {@code node}: the expectation of its report, or null when none is needed.
   */
  OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key);

  /**
   * Asked before an entry answers a read: whether the changes servers reported until just now have
   * been applied, applying them on the caller's thread if it can without waiting. False sends the
   * read to Redis, unfilled.
   *
   * @param nowNanos {@link System#nanoTime}, as the cache read it for the whole lookup
   */
  default boolean caughtUp(long nowNanos) {
    return true;
  }
}
