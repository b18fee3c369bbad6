package io.hotkey.it.app;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * One Lettuce connection reading one key through the sync API, with a command timeout; or the calls
 * of {@link LiveLoadApp}.
 */
final class LettuceGets {
  private LettuceGets() {}

  /** With Lettuce's default command timeout (60 s). */
  static Supplier<String> open(String host, int port, String key, List<AutoCloseable> closeables) {
    return open(host, port, key, closeables, RedisURI.DEFAULT_TIMEOUT_DURATION);
  }

  static Supplier<String> open(
      String host, int port, String key, List<AutoCloseable> closeables, Duration timeout) {
    RedisClient client =
        RedisClient.create(
            RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build());
    StatefulRedisConnection<String, String> connection = client.connect();
    closeables.add(connection);
    closeables.add(client::shutdown);
    return () -> connection.sync().get(key);
  }

  /** {@link LiveLoadApp}'s calls on one connection's sync API, open until the JVM ends. */
  static LiveLoadApp.KeyValues keyValues(String host, int port) {
    RedisCommands<String, String> sync =
        RedisClient.create(RedisURI.builder().withHost(host).withPort(port).build())
            .connect()
            .sync();
    return new LiveLoadApp.KeyValues(sync::get, sync::set);
  }
}
