package io.hotkey.it.app;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One Lettuce connection reading one key through the sync API, or any key through the API asked
 * for, with a command timeout; or the calls of {@link LiveLoadApp}.
 */
final class LettuceGets {
  private LettuceGets() {}

  /** With Lettuce's default command timeout (60 s). */
  static Supplier<String> open(String host, int port, String key, List<AutoCloseable> closeables) {
    return open(host, port, key, closeables, RedisURI.DEFAULT_TIMEOUT_DURATION);
  }

  /** One Lettuce connection setting one key through the sync API, as the application writes it. */
  static Consumer<String> sets(String host, int port, String key, List<AutoCloseable> closeables) {
    RedisClient client =
        RedisClient.create(RedisURI.builder().withHost(host).withPort(port).build());
    StatefulRedisConnection<String, String> connection = client.connect();
    closeables.add(connection);
    closeables.add(client::shutdown);
    return value -> connection.sync().set(key, value);
  }

  /**
   * With a command timeout of {@code timeout}, set once connected: the handshake keeps Lettuce's
   * default, as a JVM that has just started (its first connection loads and instruments Lettuce's
   * classes) may take longer over it than a short command timeout allows.
   */
  static Supplier<String> open(
      String host, int port, String key, List<AutoCloseable> closeables, Duration timeout) {
    return open(host, port, closeables, timeout, "sync").apply(key);
  }

  /**
   * Reads of any key through one connection's {@code api} ({@code sync}, {@code async} or {@code
   * reactive}), with a command timeout; a failed read throws the exception Lettuce gave it.
   */
  static Function<String, Supplier<String>> open(
      String host, int port, List<AutoCloseable> closeables, Duration timeout, String api) {
    RedisClient client =
        RedisClient.create(RedisURI.builder().withHost(host).withPort(port).build());
    StatefulRedisConnection<String, String> connection = client.connect();
    connection.setTimeout(timeout);
    closeables.add(connection);
    closeables.add(client::shutdown);
    return switch (api) {
      case "sync" -> key -> () -> connection.sync().get(key);
      case "async" -> key -> () -> awaitAsync(connection.async().get(key));
      case "reactive" -> key -> () -> connection.reactive().get(key).block();
      default -> throw new IllegalArgumentException("api " + api);
    };
  }

  private static String awaitAsync(RedisFuture<String> read) {
    try {
      return read.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException
          ? (RuntimeException) e.getCause()
          : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * As the application configures it: a {@code redis://} or {@code rediss://} URI with its
   * credentials and verify mode, TLS trusting the PEM certificates of {@code trustedPem} (null: the
   * JVM's trust store), through a {@code RedisClusterClient} if {@code cluster}.
   */
  static Supplier<String> open(
      String uri, String trustedPem, boolean cluster, String key, List<AutoCloseable> closeables) {
    SslOptions.Builder tls = SslOptions.builder();
    if (trustedPem != null) {
      tls.trustManager(new File(trustedPem));
    }
    if (cluster) {
      RedisClusterClient client = RedisClusterClient.create(RedisURI.create(uri));
      client.setOptions(ClusterClientOptions.builder().sslOptions(tls.build()).build());
      StatefulRedisClusterConnection<String, String> connection = client.connect();
      closeables.add(connection);
      closeables.add(client::shutdown);
      return () -> connection.sync().get(key);
    }
    RedisClient client = RedisClient.create(RedisURI.create(uri));
    client.setOptions(ClientOptions.builder().sslOptions(tls.build()).build());
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
