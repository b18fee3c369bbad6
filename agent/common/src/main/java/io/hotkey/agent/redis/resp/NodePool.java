package io.hotkey.agent.redis.resp;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The idle connections to one Redis node, and whether it is down. Connections are created on demand
 * (more callers than pooled connections open extra ones, closed after use) and a failed one is
 * discarded. When a connection cannot be made, or a command times out, the node is down: callers
 * fail at once instead of each waiting for a timeout, and a background thread tries to connect and
 * {@code PING} every probe period until it works, then puts the node back in service. So the node
 * is used again within a probe period of its return, not after a fixed blind interval.
 */
final class NodePool implements AutoCloseable {
  private static final byte[] PING = RespConnection.bytes("PING");

  /** What a caller does with a connection: one command, or a few sent together. */
  interface Exchange {
    Object run(RespConnection connection) throws IOException;
  }

  final RedisEndpoint endpoint;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final long probeMillis;
  private final ArrayBlockingQueue<RespConnection> idle;
  private final AtomicBoolean probing = new AtomicBoolean();
  private volatile String downBecause;
  private volatile boolean closed;

  NodePool(
      RedisEndpoint endpoint,
      int connectTimeoutMillis,
      int readTimeoutMillis,
      int poolSize,
      long probeMillis) {
    this.endpoint = endpoint;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.readTimeoutMillis = readTimeoutMillis;
    this.probeMillis = probeMillis;
    this.idle = new ArrayBlockingQueue<>(poolSize);
  }

  /**
   * Runs the exchange on a pooled connection, or on a new one. An exchange that fails on a pooled
   * connection other than by a timeout (Redis restarted and closed it) is run once more on a new
   * connection, so exchanges must be safe to repeat.
   */
  Object execute(Exchange exchange) throws IOException {
    String down = downBecause;
    if (down != null) {
      throw new IOException("Redis " + endpoint + " is down (" + down + "); probing it");
    }
    RespConnection pooled = idle.poll();
    if (pooled != null) {
      try {
        Object reply = exchange.run(pooled);
        giveBack(pooled);
        return reply;
      } catch (SocketTimeoutException slow) {
        pooled.close();
        markDown(slow);
        throw slow;
      } catch (IOException stale) {
        pooled.close();
      }
    }
    RespConnection fresh = open();
    try {
      Object reply = exchange.run(fresh);
      giveBack(fresh);
      return reply;
    } catch (IOException e) {
      fresh.close();
      markDown(e);
      throw e;
    }
  }

  boolean isDown() {
    return downBecause != null;
  }

  private RespConnection open() throws IOException {
    if (closed) {
      throw new IOException("client closed");
    }
    try {
      return new RespConnection(endpoint, connectTimeoutMillis, readTimeoutMillis);
    } catch (IOException e) {
      markDown(e);
      throw e;
    }
  }

  private void giveBack(RespConnection connection) {
    if (closed || connection.isBroken() || !idle.offer(connection)) {
      connection.close();
    }
  }

  private void markDown(IOException why) {
    if (closed) {
      return;
    }
    downBecause = String.valueOf(why.getMessage());
    drainIdle();
    if (probing.compareAndSet(false, true)) {
      Thread probe = new Thread(this::probeUntilUp, "hotkey-redis-probe " + endpoint);
      probe.setDaemon(true);
      probe.start();
    }
  }

  private void probeUntilUp() {
    while (!closed) {
      try {
        Thread.sleep(probeMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      RespConnection connection;
      try {
        connection = new RespConnection(endpoint, connectTimeoutMillis, readTimeoutMillis);
      } catch (IOException stillDown) {
        downBecause = String.valueOf(stillDown.getMessage());
        continue;
      }
      try {
        Object pong = connection.call(PING);
        if (pong instanceof RespError) {
          throw new IOException("PING answered " + pong);
        }
      } catch (IOException stillDown) {
        connection.close();
        downBecause = String.valueOf(stillDown.getMessage());
        continue;
      }
      giveBack(connection);
      // a failure from here on starts a new probe; this one ends
      probing.set(false);
      downBecause = null;
      return;
    }
    probing.set(false);
  }

  private void drainIdle() {
    RespConnection connection;
    while ((connection = idle.poll()) != null) {
      connection.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    drainIdle();
  }
}
