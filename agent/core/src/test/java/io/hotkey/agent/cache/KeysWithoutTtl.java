package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import java.util.List;

/**
 * For tests of the cache without a Redis: answers at once that no key has a TTL, as {@code PTTL}
 * does for keys set without one, and drops touches.
 */
public final class KeysWithoutTtl implements RemainingTtls, ServedKeyTouches {
  public static final KeysWithoutTtl INSTANCE = new KeysWithoutTtl();

  private KeysWithoutTtl() {}

  @Override
  public boolean ask(RedisEndpoint node, int database, byte[][] keys, Answer answer) {
    answer.answered(System.nanoTime(), NO_TTL);
    return true;
  }

  @Override
  public void touch(RedisEndpoint node, int database, List<byte[]> keys) {}
}
