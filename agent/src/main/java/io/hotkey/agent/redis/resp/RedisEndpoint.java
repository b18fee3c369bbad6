package io.hotkey.agent.redis.resp;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where and as whom the agent's own connections reach a server: {@code
 * redis://[[user]:password@]host[:port][/db]}, or {@code rediss://} for TLS (the certificate chain
 * and the host name are verified against the JVM's trust store).
 */
public final class RedisEndpoint {
  final String host;
  final int port;
  final int database;
  final String user;
  final String password;
  final boolean tls;

  RedisEndpoint(String host, int port, int database, String user, String password, boolean tls) {
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
    this.tls = tls;
  }

  /**
   * @param setting the configuration key the URI came from, for error messages
   */
  public static RedisEndpoint parse(String setting, URI uri) {
    boolean tls = "rediss".equalsIgnoreCase(uri.getScheme());
    if (!tls && !"redis".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(
          setting + " " + uri + ": expected redis://host:port[/db] or rediss:// for TLS");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(setting + " " + uri + " has no host");
    }
    int port = uri.getPort() == -1 ? 6379 : uri.getPort();
    int database = 0;
    String path = uri.getPath();
    if (path != null && path.length() > 1) {
      try {
        database = Integer.parseInt(path.substring(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            setting + " " + uri + ": /" + path.substring(1) + " is not a database number");
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
    return new RedisEndpoint(uri.getHost(), port, database, user, password, tls);
  }

  /** A plain connection as the default user, to database 0. */
  public static RedisEndpoint of(String host, int port) {
    return new RedisEndpoint(host, port, 0, null, null, false);
  }

  /** This endpoint's database, credentials and TLS at another address. */
  public RedisEndpoint at(String otherHost, int otherPort) {
    return new RedisEndpoint(otherHost, otherPort, database, user, password, tls);
  }

  /** This address with an ACL user (null: the default user) and password (null: none). */
  public RedisEndpoint withCredentials(String otherUser, String otherPassword) {
    return new RedisEndpoint(host, port, database, otherUser, otherPassword, tls);
  }

  /** This endpoint over TLS, or not. */
  public RedisEndpoint withTls(boolean useTls) {
    return new RedisEndpoint(host, port, database, user, password, useTls);
  }

  public boolean tls() {
    return tls;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public boolean hasCredentials() {
    return password != null;
  }

  private static String decode(String text) {
    return URLDecoder.decode(text, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return (tls ? "rediss://" : "redis://")
        + (user == null ? "" : user + "@")
        + host
        + ":"
        + port
        + (database == 0 ? "" : "/" + database);
  }
}
