package io.hotkey.it;

import redis.clients.jedis.Jedis;

/** A running Redis the tests own, reachable from this JVM and the child JVMs. */
public final class RedisServer implements AutoCloseable {
  private final String host;
  private final int port;
  private final String description;
  private final AutoCloseable stopper;

  /**
   * The local process behind this server, which {@link #stop()} and {@link #restart()} act on; null
   * for Docker.
   */
  private final LocalRedisProcess process;

  /**
   * @param stopper how {@link #close()} ends the server; a {@link LocalRedisProcess} also allows
   *     stop/restart
   */
  RedisServer(String host, int port, String description, AutoCloseable stopper) {
    this.host = host;
    this.port = port;
    this.description = description;
    this.stopper = stopper;
    this.process =
        stopper instanceof LocalRedisProcess localRedisProcess ? localRedisProcess : null;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** host:port, as the scenario apps take it. */
  public String address() {
    return host + ":" + port;
  }

  public String description() {
    return description;
  }

  /** A new plain connection (this JVM has no agent). Close it. */
  public Jedis jedis() {
    return new Jedis(host, port, 10_000);
  }

  /** FLUSHALL + CONFIG RESETSTAT. */
  public void reset() {
    try (Jedis j = jedis()) {
      j.flushAll();
      j.configResetStat();
    }
  }

  public CommandStats stats() {
    try (Jedis j = jedis()) {
      return CommandStats.parse(j.info("commandstats"));
    }
  }

  /** Calls of one command so far, from INFO commandstats (e.g. {@code calls("get")}). */
  public long calls(String command) {
    return stats().calls(command);
  }

  /**
   * Takes the server down (clients get connection refused) and keeps its data directory; {@link
   * #restart()} brings it back. Only for a local process; a server from {@link
   * RedisServers#startPersistent} comes back with its data.
   */
  public void stop() throws InterruptedException {
    localProcess().stop();
  }

  /**
   * Starts the server again on the same port with the same data directory, and waits until it
   * answers PING.
   */
  public void restart() throws Exception {
    localProcess().start();
  }

  private LocalRedisProcess localProcess() {
    if (process == null) {
      throw new UnsupportedOperationException(
          description + " cannot be stopped and restarted (not a local process)");
    }
    return process;
  }

  @Override
  public void close() {
    try {
      stopper.close();
    } catch (Exception e) {
      System.err.println("stopping " + description + ": " + e);
    }
  }

  @Override
  public String toString() {
    return description + " at " + address();
  }
}
