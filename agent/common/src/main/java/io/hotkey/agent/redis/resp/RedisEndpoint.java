package io.hotkey.agent.redis.resp;

import java.io.IOException;
import java.net.PasswordAuthentication;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLSocketFactory;

/**
 * Where and as whom the agent's own connections reach a server: {@code
 * redis://[[user]:password@]host[:port][/db][?protocol=2|3]}, or {@code rediss://} for TLS (the
 * certificate chain and the host name are verified against the JVM's trust store, or the one given
 * to {@link #withTrustStore}). With {@code protocol=3} a connection starts with {@code HELLO 3}. An
 * endpoint described from an application's client ({@link #withCredentialsFrom}, {@link
 * #withTls(Callable, boolean)}) asks for its credentials and TLS sockets each time a connection
 * opens, on the connecting thread, so that it logs in and trusts as the client does at that moment.
 */
public final class RedisEndpoint {
  final String host;
  final int port;
  final int database;
  final String user;
  final String password;
  final boolean tls;
  final int protocol;

  /** Makes the TLS sockets' factory, asked on each connect; null: the JVM's default. */
  private final Callable<SSLSocketFactory> tlsSockets;

  /** Whether TLS checks that the server's certificate names {@link #host}, as HTTPS does. */
  final boolean verifyHostName;

  /**
   * Asked for the login on each connect instead of {@link #user} and {@link #password}; or null.
   */
  private final Callable<PasswordAuthentication> credentials;

  RedisEndpoint(String host, int port, int database, String user, String password, boolean tls) {
    this(host, port, database, user, password, tls, 2, null, true, null);
  }

  private RedisEndpoint(
      String host,
      int port,
      int database,
      String user,
      String password,
      boolean tls,
      int protocol,
      Callable<SSLSocketFactory> tlsSockets,
      boolean verifyHostName,
      Callable<PasswordAuthentication> credentials) {
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
    this.tls = tls;
    this.protocol = protocol;
    this.tlsSockets = tlsSockets;
    this.verifyHostName = verifyHostName;
    this.credentials = credentials;
  }

  /**
   * Reads {@code redis://} or {@code rediss://} with user, password, database and protocol.
   *
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
    int protocol = 2;
    String query = uri.getRawQuery();
    if (query != null) {
      if (!query.equals("protocol=2") && !query.equals("protocol=3")) {
        throw new IllegalArgumentException(
            setting + " " + uri + ": ?" + query + " is not protocol=2 or protocol=3");
      }
      protocol = query.charAt(query.length() - 1) - '0';
    }
    return new RedisEndpoint(
        uri.getHost(), port, database, user, password, tls, protocol, null, true, null);
  }

  /** A plain connection as the default user, to database 0. */
  public static RedisEndpoint of(String host, int port) {
    return new RedisEndpoint(host, port, 0, null, null, false);
  }

  /** This endpoint's database, credentials, protocol and TLS at another address. */
  public RedisEndpoint at(String otherHost, int otherPort) {
    return new RedisEndpoint(
        otherHost,
        otherPort,
        database,
        user,
        password,
        tls,
        protocol,
        tlsSockets,
        verifyHostName,
        credentials);
  }

  /** This address with an ACL user (null: the default user) and password (null: none). */
  public RedisEndpoint withCredentials(String otherUser, String otherPassword) {
    return new RedisEndpoint(
        host,
        port,
        database,
        otherUser,
        otherPassword,
        tls,
        protocol,
        tlsSockets,
        verifyHostName,
        null);
  }

  /**
   * This endpoint logging in with what {@code source} answers when a connection opens (null: no
   * login; the user null: the default user), so that it follows credentials that change.
   */
  public RedisEndpoint withCredentialsFrom(Callable<PasswordAuthentication> source) {
    return new RedisEndpoint(
        host, port, database, null, null, tls, protocol, tlsSockets, verifyHostName, source);
  }

  /** This endpoint's address, login, protocol and TLS, selecting {@code otherDatabase}. */
  public RedisEndpoint withDatabase(int otherDatabase) {
    return new RedisEndpoint(
        host,
        port,
        otherDatabase,
        user,
        password,
        tls,
        protocol,
        tlsSockets,
        verifyHostName,
        credentials);
  }

  /** This endpoint over TLS, or not. */
  public RedisEndpoint withTls(boolean useTls) {
    return new RedisEndpoint(
        host,
        port,
        database,
        user,
        password,
        useTls,
        protocol,
        tlsSockets,
        verifyHostName,
        credentials);
  }

  /**
   * This endpoint over TLS with the sockets {@code sockets} makes on each connect (null: the JVM's
   * default), checking that the server's certificate names this host only if {@code
   * verifyHostName}.
   */
  public RedisEndpoint withTls(Callable<SSLSocketFactory> sockets, boolean verifyHostName) {
    return new RedisEndpoint(
        host, port, database, user, password, true, protocol, sockets, verifyHostName, credentials);
  }

  /** This endpoint speaking RESP2 (2) or RESP3 (3, {@code HELLO 3} on connect). */
  public RedisEndpoint withProtocol(int version) {
    if (version != 2 && version != 3) {
      throw new IllegalArgumentException("RESP protocol " + version + " is not 2 or 3");
    }
    return new RedisEndpoint(
        host,
        port,
        database,
        user,
        password,
        tls,
        version,
        tlsSockets,
        verifyHostName,
        credentials);
  }

  /**
   * This endpoint trusting, for TLS, only the certificates in {@code trustStore} (see {@link
   * TrustStores#socketFactory}) instead of the JVM's trust store.
   *
   * @throws IOException when the file cannot be read or holds no certificate
   */
  public RedisEndpoint withTrustStore(Path trustStore) throws IOException {
    SSLSocketFactory trusting = TrustStores.socketFactory(trustStore);
    return new RedisEndpoint(
        host,
        port,
        database,
        user,
        password,
        tls,
        protocol,
        () -> trusting,
        verifyHostName,
        credentials);
  }

  /** The login for a connection opening now; null: none. */
  PasswordAuthentication login() throws IOException {
    if (credentials == null) {
      return password == null ? null : new PasswordAuthentication(user, password.toCharArray());
    }
    try {
      return credentials.call();
    } catch (Exception | LinkageError e) {
      // the class only: a credentials source's message might quote what it failed on
      throw new IOException("the client's credentials could not be had: " + e.getClass().getName());
    }
  }

  /** The factory of TLS sockets for a connection opening now. */
  SSLSocketFactory tlsSocketFactory() throws IOException {
    if (tlsSockets == null) {
      return (SSLSocketFactory) SSLSocketFactory.getDefault();
    }
    try {
      return tlsSockets.call();
    } catch (Exception | LinkageError e) {
      throw new IOException("the client's TLS settings could not be used: " + e, e);
    }
  }

  public int protocol() {
    return protocol;
  }

  public boolean tls() {
    return tls;
  }

  public String host() {
    return host;
  }

  public int database() {
    return database;
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
        + (database == 0 ? "" : "/" + database)
        + (protocol == 2 ? "" : "?protocol=" + protocol);
  }
}
