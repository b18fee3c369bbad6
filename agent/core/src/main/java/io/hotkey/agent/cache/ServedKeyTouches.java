package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.List;

/**
 * Tells a server which of its keys were answered locally since the last round, with {@code TOUCH}
 * on the agent's own connection, so that its LRU and LFU clocks see those keys read and its
 * eviction keeps treating them as the hottest they are.
 */
public interface ServedKeyTouches {
  /**
   * Queues one round's touches of keys in one server's database; returns at once.
   *
   * @param node the server the entries were read from
   */
  void touch(RedisEndpoint node, int database, List<byte[]> keys);
}
