package io.hotkey.it;

import redis.clients.jedis.Jedis;

/** A running Redis the tests own, reachable from this JVM and the child JVMs. */
public final class RedisServer implements AutoCloseable {
    private final String host;
    private final int port;
    private final String description;
    private final AutoCloseable stopper;

    RedisServer(String host, int port, String description, AutoCloseable stopper) {
        this.host = host;
        this.port = port;
        this.description = description;
        this.stopper = stopper;
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
