package io.hotkey.agent.redis.resp;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's own small Redis client (the application's Jedis/Lettuce are never used): a pool of up
 * to {@code poolSize} idle {@link RespConnection}s, created on demand (more callers than pooled
 * connections simply open extra ones that are closed after use). A connection that fails is
 * discarded. A command that fails on a pooled connection before any reply byte arrived (e.g. Redis
 * restarted) is retried once on a new connection, so callers send only commands that are safe to
 * repeat. After a connect failure the client fails fast for {@code downMillis}, so an unreachable
 * Redis costs the application one connect timeout per period instead of one per request.
 */
public final class RespClient implements AutoCloseable {
  private final RedisEndpoint endpoint;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final long downNanos;
  private final ArrayBlockingQueue<RespConnection> idle;
  private final AtomicLong downUntil = new AtomicLong(System.nanoTime());
  private volatile boolean closed;

  public RespClient(
      RedisEndpoint endpoint,
      int connectTimeoutMillis,
      int readTimeoutMillis,
      int poolSize,
      long downMillis) {
    this.endpoint = endpoint;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.readTimeoutMillis = readTimeoutMillis;
    this.downNanos = downMillis * 1_000_000L;
    this.idle = new ArrayBlockingQueue<>(poolSize);
  }

  public Object call(byte[]... args) throws IOException {
    RespConnection pooled = idle.poll();
    if (pooled != null) {
      try {
        Object reply = pooled.call(args);
        giveBack(pooled);
        return reply;
      } catch (java.net.SocketTimeoutException slow) {
        pooled.close();
        throw slow;
      } catch (IOException stale) {
        pooled.close();
        // fall through: one attempt on a fresh connection
      }
    }
    RespConnection fresh = open();
    try {
      Object reply = fresh.call(args);
      giveBack(fresh);
      return reply;
    } catch (IOException e) {
      fresh.close();
      throw e;
    }
  }

  /** EVALSHA, and EVAL when the server does not know the script (restart, SCRIPT FLUSH). */
  public Object eval(LuaScript script, byte[][] keys, byte[]... args) throws IOException {
    Object reply = call(script.command(true, keys, args));
    if (reply instanceof RespError && ((RespError) reply).isNoScript()) {
      reply = call(script.command(false, keys, args));
    }
    return reply;
  }

  private RespConnection open() throws IOException {
    if (closed) {
      throw new IOException("client closed");
    }
    long now = System.nanoTime();
    if (now - downUntil.get() < 0) {
      throw new IOException(
          "Redis " + endpoint + " unreachable (failing fast after a connect failure)");
    }
    try {
      return new RespConnection(endpoint, connectTimeoutMillis, readTimeoutMillis);
    } catch (IOException e) {
      downUntil.set(System.nanoTime() + downNanos);
      throw e;
    }
  }

  private void giveBack(RespConnection connection) {
    if (closed || connection.isBroken() || !idle.offer(connection)) {
      connection.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    RespConnection connection;
    while ((connection = idle.poll()) != null) {
      connection.close();
    }
  }
}
