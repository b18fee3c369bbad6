package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * For tests of the cache without a Redis: answers at once that no key has a TTL, as {@code PTTL}
 * does for keys set without one.
 */
public final class KeysWithoutTtl implements RemainingTtls {
  public static final KeysWithoutTtl INSTANCE = new KeysWithoutTtl();

  private KeysWithoutTtl() {}

  @Override
  public boolean ask(RedisEndpoint node, byte[][] keys, Answer answer) {
    answer.answered(System.nanoTime(), NO_TTL);
    return true;
  }
}
