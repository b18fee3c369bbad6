package io.hotkey.demo.bench;

import java.util.Locale;

/** The Redis client a benchmark child drives the workload with. */
public enum Client {

  /** A pooled Jedis {@code RedisClient}, one connection per thread. */
  JEDIS("pooled Jedis RedisClient"),

  /** Lettuce's sync API on one shared {@code StatefulRedisConnection}, as Lettuce recommends. */
  LETTUCE_SYNC("Lettuce sync API on one shared connection"),

  /**
   * Lettuce's async API on one shared connection, each thread keeping a bounded number of commands
   * in flight.
   */
  LETTUCE_ASYNC(
      "Lettuce async API on one shared connection, "
          + WorkloadRun.ASYNC_IN_FLIGHT
          + " commands in flight per thread");

  private final String description;

  Client(String description) {
    this.description = description;
  }

  public static Client named(String name) {
    for (Client client : values()) {
      if (client.cliName().equals(name.toLowerCase(Locale.ROOT))) {
        return client;
      }
    }
    throw new IllegalArgumentException(
        "unknown client " + name + "; expected jedis, lettuce-sync or lettuce-async");
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public String description() {
    return description;
  }
}
