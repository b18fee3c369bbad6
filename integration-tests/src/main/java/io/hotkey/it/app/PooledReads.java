package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.CoreResults;
import redis.clients.jedis.UnifiedJedis;

/**
 * The UnifiedJedis path (Jedis 4+ only; never loaded on 3.x): {@code JedisPooled} on 4.x-7.x,
 * {@code RedisClient.create(host, port)} where it exists (7.x+; JedisPooled is gone in 8.x).
 */
final class PooledReads {
  private PooledReads() {}

  static UnifiedJedis open(String host, int port) {
    // both by reflection: a direct reference to a class that the running version lacks fails
    // verification
    try {
      Class<?> rc = Class.forName("redis.clients.jedis.RedisClient");
      return (UnifiedJedis)
          rc.getMethod("create", String.class, int.class).invoke(null, host, port);
    } catch (ClassNotFoundException e) {
      try {
        return Class.forName("redis.clients.jedis.JedisPooled")
            .asSubclass(UnifiedJedis.class)
            .getConstructor(String.class, int.class)
            .newInstance(host, port);
      } catch (ReflectiveOperationException e2) {
        throw new IllegalStateException(e2);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@link LiveLoadApp}'s calls on a pooled client. */
  static LiveLoadApp.KeyValues keyValues(String host, int port) {
    UnifiedJedis client = open(host, port);
    return new LiveLoadApp.KeyValues(client::get, client::set);
  }

  static void run(
      String host,
      int port,
      int n,
      String key,
      String expected,
      java.util.function.Supplier<String> readViaJedis) {
    try (UnifiedJedis c = open(host, port)) {
      result(CoreResults.POOLED_CLIENT, c.getClass().getName());
      long mismatches = 0;
      for (int i = 0; i < n; i++) {
        if (!expected.equals(c.get(key))) {
          mismatches++;
        }
      }
      result(CoreResults.POOLED_READS, (long) n);
      result(CoreResults.POOLED_MISMATCHES, mismatches);
      c.set(key, "pooled-written");
      result(CoreResults.POOLED_READ_BACK, c.get(key));
      result(CoreResults.POOLED_READ_BACK_VIA_JEDIS, readViaJedis.get());
      c.set(key, expected);
      result(CoreResults.POOLED_RESTORED, c.get(key));
    }
  }
}
