package io.hotkey.agent.idempotency.redis;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's own small Redis client (the application's Jedis/Lettuce are never used): a pool of up
 * to {@code poolSize} idle {@link RespConnection}s, created on demand (more callers than pooled
 * connections simply open extra ones that are closed after use). A connection that fails is
 * discarded. A command that fails on a pooled connection before any reply byte arrived (e.g. Redis
 * restarted) is retried once on a new connection; every command the store sends is safe to repeat
 * (see {@link RedisRecordStore}). After a connect failure the client fails fast for {@code
 * downMillis}, so an unreachable Redis costs the application one connect timeout per period instead
 * of one per request.
 */
final class RespClient implements AutoCloseable {
  private final RedisEndpoint endpoint;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final long downNanos;
  private final ArrayBlockingQueue<RespConnection> idle;
  private final AtomicLong downUntil = new AtomicLong(System.nanoTime());
  private volatile boolean closed;

  RespClient(
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

  Object call(byte[]... args) throws IOException {
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
  Object eval(Script script, byte[][] keys, byte[]... args) throws IOException {
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

  /** A Lua script with its SHA-1, sent by EVALSHA first. */
  static final class Script {
    private final byte[] source;
    private final byte[] sha;

    Script(String source) {
      this.source = RespConnection.bytes(source);
      try {
        this.sha =
            RespConnection.bytes(hex(MessageDigest.getInstance("SHA-1").digest(this.source)));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    byte[][] command(boolean bySha, byte[][] keys, byte[][] args) {
      byte[][] command = new byte[3 + keys.length + args.length][];
      command[0] = RespConnection.bytes(bySha ? "EVALSHA" : "EVAL");
      command[1] = bySha ? sha : source;
      command[2] = RespConnection.bytes(Integer.toString(keys.length));
      System.arraycopy(keys, 0, command, 3, keys.length);
      System.arraycopy(args, 0, command, 3 + keys.length, args.length);
      return command;
    }

    private static String hex(byte[] bytes) {
      StringBuilder text = new StringBuilder(bytes.length * 2);
      for (byte b : bytes) {
        text.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return text.toString();
    }
  }
}
