package io.hotkey.agent.idempotency.redis;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * {@code redis://[[user]:password@]host[:port][/db]}; TLS ({@code rediss://}) is not supported by
 * the agent's client.
 */
public final class RedisEndpoint {
  final String host;
  final int port;
  final int database;
  final String user;
  final String password;

  RedisEndpoint(String host, int port, int database, String user, String password) {
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
  }

  public static RedisEndpoint parse(URI uri) {
    if (!"redis".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(
          "hotkey.idempotency.redis.uri "
              + uri
              + ": only redis://host:port[/db] is supported (no TLS)");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("hotkey.idempotency.redis.uri " + uri + " has no host");
    }
    int port = uri.getPort() == -1 ? 6379 : uri.getPort();
    int database = 0;
    String path = uri.getPath();
    if (path != null && path.length() > 1) {
      try {
        database = Integer.parseInt(path.substring(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "hotkey.idempotency.redis.uri "
                + uri
                + ": /"
                + path.substring(1)
                + " is not a database number");
      }
    }
    String user = null;
    String password = null;
    String info = uri.getRawUserInfo();
    if (info != null && !info.isEmpty()) {
      int colon = info.indexOf(':');
      if (colon < 0) {
        password = decode(info);
      } else {
        user = colon == 0 ? null : decode(info.substring(0, colon));
        password = decode(info.substring(colon + 1));
      }
    }
    return new RedisEndpoint(uri.getHost(), port, database, user, password);
  }

  public static RedisEndpoint of(String host, int port) {
    return new RedisEndpoint(host, port, 0, null, null);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "redis://" + host + ":" + port + (database == 0 ? "" : "/" + database);
  }
}
