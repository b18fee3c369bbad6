package io.hotkey.it.app;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import java.util.function.Supplier;

/** One Lettuce connection reading one key through the sync API ({@link StalenessApp}). */
final class LettuceGets {
  private LettuceGets() {}

  static Supplier<String> open(String host, int port, String key, List<AutoCloseable> closeables) {
    RedisClient client = RedisClient.create(RedisURI.create(host, port));
    StatefulRedisConnection<String, String> connection = client.connect();
    closeables.add(connection);
    closeables.add(client::shutdown);
    return () -> connection.sync().get(key);
  }
}
