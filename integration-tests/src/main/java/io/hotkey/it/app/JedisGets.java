package io.hotkey.it.app;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** One classic Jedis connection reading one key ({@link StalenessApp}). */
final class JedisGets {
  private JedisGets() {}

  static Supplier<String> open(String host, int port, String key, List<AutoCloseable> closeables) {
    Jedis jedis = new Jedis(host, port);
    closeables.add(jedis);
    return () -> jedis.get(key);
  }

  /** A pooled client ({@code RedisClient} or {@code JedisPooled}) reading one key, thread-safe. */
  static Supplier<String> pooled(
      String host, int port, String key, List<AutoCloseable> closeables) {
    UnifiedJedis client = PooledReads.open(host, port);
    closeables.add(client);
    return () -> client.get(key);
  }

  /** One classic Jedis connection setting one key, as the application writes it. */
  static Consumer<String> sets(String host, int port, String key, List<AutoCloseable> closeables) {
    Jedis jedis = new Jedis(host, port);
    closeables.add(jedis);
    return value -> jedis.set(key, value);
  }

  /**
   * One classic Jedis connection reading one key, replaced by a new one once it broke, as a pool
   * replaces it: Jedis never reconnects a broken connection itself. A read that finds Redis gone
   * fails as Jedis fails it.
   */
  static Supplier<String> reopening(
      String host, int port, String key, List<AutoCloseable> closeables) {
    Reopening reads = new Reopening(host, port, key);
    closeables.add(reads);
    return reads;
  }

  /** Used by its reader thread only, and closed once that ended. */
  private static final class Reopening implements Supplier<String>, AutoCloseable {
    private final String host;
    private final int port;
    private final String key;
    private Jedis jedis;

    Reopening(String host, int port, String key) {
      this.host = host;
      this.port = port;
      this.key = key;
    }

    @Override
    public String get() {
      if (jedis == null) {
        jedis = new Jedis(host, port);
      }
      try {
        return jedis.get(key);
      } catch (JedisConnectionException e) {
        close();
        throw e;
      }
    }

    @Override
    public void close() {
      Jedis broken = jedis;
      jedis = null;
      if (broken != null) {
        broken.close();
      }
    }
  }
}
