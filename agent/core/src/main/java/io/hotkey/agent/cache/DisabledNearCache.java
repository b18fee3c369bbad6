package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;

/** {@link NearCache#DISABLED}: local serving is off. */
final class DisabledNearCache implements NearCache {
  @Override
  public Object lookup(CacheKey key, int[] keyHashes) {
    return null;
  }

  @Override
  public Object lookupNoWait(CacheKey key, int[] keyHashes) {
    return null;
  }

  @Override
  public void putWritten(
      RedisEndpoint node, CacheKey key, Object raw, int[] keyHashes, long[] stamp) {}

  @Override
  public OwnWriteEcho expectEcho(RedisEndpoint node, byte[] key) {
    return null;
  }

  @Override
  public boolean park(
      ParkedReads parked, Object connection, Object command, HotKeyReads[] hotKeys) {
    return false;
  }

  @Override
  public void countResumed(Resumption read, boolean answered) {}

  @Override
  public void touchServed() {}

  @Override
  public void dropExpired() {}

  @Override
  public long maxEntryBytes() {
    return 0;
  }

  @Override
  public void complete(ReadFill fill, Object raw) {}

  @Override
  public void abandon(ReadFill fill) {}

  @Override
  public long hits() {
    return 0;
  }

  @Override
  public long misses() {
    return 0;
  }

  @Override
  public long evictions() {
    return 0;
  }

  @Override
  public long bytes() {
    return 0;
  }

  @Override
  public CachedReply stale(CacheKey key, int[] keyHashes) {
    return null;
  }

  @Override
  public long refreshes() {
    return 0;
  }

  @Override
  public boolean servesStale() {
    return false;
  }

  @Override
  public void countStale(int reads) {}

  @Override
  public long staleServed() {
    return 0;
  }

  @Override
  public long entries() {
    return 0;
  }
}
