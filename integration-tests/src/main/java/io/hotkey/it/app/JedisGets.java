package io.hotkey.it.app;

import java.util.List;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;

/** One classic Jedis connection reading one key ({@link StalenessApp}). */
final class JedisGets {
  private JedisGets() {}

  static Supplier<String> open(String host, int port, String key, List<AutoCloseable> closeables) {
    Jedis jedis = new Jedis(host, port);
    closeables.add(jedis);
    return () -> jedis.get(key);
  }
}
