package io.hotkey.agent.instrument.webflux.netty;

import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The event loops' connections to one store's Redis, and the calls over each. */
final class LoopConnections {
  final RedisRecordStore store;
  final Map<EventLoop, AsyncRecordStore> byLoop = new ConcurrentHashMap<>();
  final List<EventLoopRedis> opened = new CopyOnWriteArrayList<>();

  LoopConnections(RedisRecordStore store) {
    this.store = store;
  }
}
