package io.hotkey.demo.redis;

import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * The Redis server the demo talks to: the one named by {@code REDIS_URL}, or a real {@code
 * redis-server} process started from the embedded-redis jar and stopped on {@link #close()}.
 */
public final class RedisEndpoint implements AutoCloseable {

  public static final String URL_VARIABLE = "REDIS_URL";
  public static final String LETTUCE_CLIENT_NAME = "hotkey-demo-lettuce";

  /** Lettuce waits 60 s for a reply by default; a demo request should fail long before that. */
  private static final Duration LETTUCE_COMMAND_TIMEOUT = Duration.ofSeconds(5);

  private static final String LOOPBACK = "127.0.0.1";

  private final URI uri;
  private final RedisServer embeddedServer;

  private RedisEndpoint(URI uri, RedisServer embeddedServer) {
    this.uri = uri;
    this.embeddedServer = embeddedServer;
  }

  /** Uses {@code REDIS_URL} when set, otherwise starts an embedded server. */
  public static RedisEndpoint fromEnvironment() {
    String url = System.getenv(URL_VARIABLE);
    if (url == null || url.isBlank()) {
      return startEmbedded();
    }
    return external(URI.create(url.trim()));
  }

  public static RedisEndpoint external(URI uri) {
    if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("expected redis://host:port, got " + uri);
    }
    return new RedisEndpoint(uri, null);
  }

  /**
   * Starts a real redis-server on a free loopback port, with persistence off so it leaves no files.
   */
  public static RedisEndpoint startEmbedded() {
    int port = freeLoopbackPort();
    try {
      RedisServer server =
          RedisServer.newRedisServer()
              .bind(LOOPBACK)
              .port(port)
              .setting("save \"\"")
              .setting("appendonly no")
              .build();
      server.start();
      return new RedisEndpoint(URI.create("redis://" + LOOPBACK + ":" + port), server);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not start the embedded Redis server on port " + port, e);
    }
  }

  public URI uri() {
    return uri;
  }

  public boolean isEmbedded() {
    return embeddedServer != null;
  }

  /** A pooled client sized for {@code maxConnections} concurrent callers. */
  public RedisClient newPooledClient(int maxConnections) {
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(maxConnections);
    pool.setMaxIdle(maxConnections);
    return RedisClient.builder().fromURI(uri).poolConfig(pool).build();
  }

  /**
   * A Lettuce client for this server. Lettuce connections are thread-safe: as Lettuce recommends,
   * callers share one {@code StatefulRedisConnection} rather than pooling. Close with {@link
   * #shutDown}.
   */
  public io.lettuce.core.RedisClient newLettuceClient() {
    RedisURI redisUri = RedisURI.create(uri.toString());
    redisUri.setTimeout(LETTUCE_COMMAND_TIMEOUT);
    // Named, so CLIENT LIST shows which connection is Lettuce's.
    redisUri.setClientName(LETTUCE_CLIENT_NAME);
    return io.lettuce.core.RedisClient.create(redisUri);
  }

  /** Shuts a Lettuce client down without Netty's default two-second quiet period. */
  public static void shutDown(io.lettuce.core.RedisClient client) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /**
   * A single dedicated connection, for observing the server without touching the application's
   * pool.
   */
  public Jedis newConnection() {
    return new Jedis(uri);
  }

  /**
   * Introduces this server in a benchmark's output: where it is and its version, and for a server
   * from {@code REDIS_URL} that {@code INFO commandstats} counts every client of it.
   */
  public void announce(Jedis connection, PrintStream out) {
    String version =
        connection
            .info("server")
            .lines()
            .filter(line -> line.startsWith("redis_version:"))
            .map(line -> line.substring("redis_version:".length()).trim())
            .findFirst()
            .orElse("unknown");
    out.println("Redis: " + describe() + ", version " + version);
    if (!isEmbedded()) {
      out.println(
          "note: INFO commandstats counts every client of this server; keep it otherwise idle");
    }
  }

  public String describe() {
    // Host and port only: a REDIS_URL may carry a password.
    String address = uri.getHost() + ":" + (uri.getPort() == -1 ? 6379 : uri.getPort());
    return isEmbedded()
        ? "embedded Redis at " + address + " (" + URL_VARIABLE + " not set; stopped on exit)"
        : "Redis at " + address + " (from " + URL_VARIABLE + ")";
  }

  @Override
  public void close() {
    if (embeddedServer != null && embeddedServer.isActive()) {
      try {
        embeddedServer.stop();
      } catch (IOException e) {
        throw new UncheckedIOException("could not stop the embedded Redis server", e);
      }
    }
  }

  private static int freeLoopbackPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port for the embedded Redis server", e);
    }
  }
}
