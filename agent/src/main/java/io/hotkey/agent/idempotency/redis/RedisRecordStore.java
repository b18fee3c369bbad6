package io.hotkey.agent.idempotency.redis;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.idempotency.store.ResponseCodec;
import io.hotkey.agent.idempotency.store.StoreException;
import io.hotkey.agent.redis.resp.LuaScript;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.redis.resp.RespError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/**
 * Records in a Redis shared by every instance of the application, through the agent's own {@link
 * RespClient}. A record is a hash {@code hotkey:idem:<record key>} with fields {@code s} (state
 * {@code P} in progress / {@code D} done), {@code f} (fingerprint), {@code t} (fencing token),
 * {@code o} (claimer's nonce, while in progress) and {@code r} (the response, {@link
 * ResponseCodec}). An in-progress record expires with the lease ({@code PEXPIRE}), a completed one
 * after the ttl; the remaining lease reported to a 409 is Redis' own {@code PTTL}, so instances'
 * clocks do not matter.
 *
 * <p>Fencing tokens come from {@code INCR hotkey:idem:fence}, so every claim's token is larger than
 * any earlier one, even for a key that expired and was claimed again. Complete and release act only
 * while the record is in progress with the caller's token. Every script is safe to repeat (a claim
 * recognises its own nonce), which lets the client retry a command whose connection broke.
 *
 * <p>Limits: one Redis node (or a proxy); on Redis Cluster the global fence key would be in another
 * slot.
 */
public final class RedisRecordStore implements RecordStore {
  public static final String PREFIX = "hotkey:idem:";
  static final byte[] FENCE_KEY = RespConnection.bytes(PREFIX + "fence");

  private static final LuaScript CLAIM =
      new LuaScript(
          String.join(
              "\n",
              "local s = redis.call('HGET', KEYS[1], 's')",
              "if not s then",
              "  local t = redis.call('INCR', KEYS[2])",
              "  redis.call('HSET', KEYS[1], 's', 'P', 'f', ARGV[1], 't', t, 'o', ARGV[3])",
              "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
              "  return {'C', tostring(t)}",
              "end",
              "local v = redis.call('HMGET', KEYS[1], 'f', 't', 'o', 'r')",
              "if s == 'P' and v[3] == ARGV[3] then return {'C', v[2]} end",
              "return {s, v[1] or '', v[2] or '0', tostring(redis.call('PTTL', KEYS[1])), v[4] or ''}"));

  private static final LuaScript COMPLETE =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 't')",
              "if v[2] ~= ARGV[1] then return 0 end",
              "if v[1] == 'D' then return 1 end",
              "redis.call('HSET', KEYS[1], 's', 'D', 'r', ARGV[2])",
              "redis.call('HDEL', KEYS[1], 'o')",
              "redis.call('PEXPIRE', KEYS[1], ARGV[3])",
              "return 1"));

  private static final LuaScript RELEASE =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 't')",
              "if v[1] == 'P' and v[2] == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end",
              "return 0"));

  private static final SecureRandom RANDOM = new SecureRandom();

  private final RedisEndpoint endpoint;
  private final RespClient client;

  /** Connects lazily: a Redis that is down at start only makes requests fail until it is up. */
  public RedisRecordStore(
      RedisEndpoint endpoint,
      Duration connectTimeout,
      Duration readTimeout,
      int poolSize,
      Duration failFast) {
    this.endpoint = endpoint;
    this.client =
        new RespClient(
            endpoint,
            (int) connectTimeout.toMillis(),
            (int) readTimeout.toMillis(),
            poolSize,
            failFast.toMillis());
  }

  /**
   * Defaults: 1s connect timeout, 2s read timeout, 16 pooled connections, fail fast for 1s after a
   * connect failure.
   */
  public RedisRecordStore(RedisEndpoint endpoint) {
    this(endpoint, Duration.ofSeconds(1), Duration.ofSeconds(2), 16, Duration.ofSeconds(1));
  }

  static byte[] redisKey(String recordKey) {
    return (PREFIX + recordKey).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease)
      throws StoreException {
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    Object reply =
        eval(
            "claim",
            CLAIM,
            new byte[][] {redisKey(recordKey), FENCE_KEY},
            fingerprint,
            number(Math.max(1, lease.toMillis())),
            nonce);
    try {
      List<?> items = (List<?>) reply;
      String state = text(items.get(0));
      if ("C".equals(state)) {
        return ClaimResult.claimed(Long.parseLong(text(items.get(1))));
      }
      byte[] storedFingerprint = (byte[]) items.get(1);
      long pttl = Long.parseLong(text(items.get(3)));
      if ("P".equals(state)) {
        return ClaimResult.inProgress(storedFingerprint, Math.max(1, pttl));
      }
      if ("D".equals(state)) {
        return ClaimResult.completed(
            storedFingerprint, ResponseCodec.decode((byte[]) items.get(4)));
      }
      throw new StoreException("unexpected record state " + state);
    } catch (ClassCastException
        | IndexOutOfBoundsException
        | NullPointerException
        | IllegalArgumentException e) {
      throw new StoreException("unexpected reply to the claim script: " + describe(reply), e);
    }
  }

  @Override
  public boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl)
      throws StoreException {
    Object reply =
        eval(
            "complete",
            COMPLETE,
            new byte[][] {redisKey(recordKey)},
            number(token),
            ResponseCodec.encode(response),
            number(Math.max(1, ttl.toMillis())));
    return flag(reply);
  }

  @Override
  public boolean release(String recordKey, long token) throws StoreException {
    return flag(eval("release", RELEASE, new byte[][] {redisKey(recordKey)}, number(token)));
  }

  private Object eval(String what, LuaScript script, byte[][] keys, byte[]... args)
      throws StoreException {
    Object reply;
    try {
      reply = client.eval(script, keys, args);
    } catch (IOException e) {
      throw new StoreException(what + " on " + endpoint + ": " + e.getMessage(), e);
    }
    if (reply instanceof RespError) {
      throw new StoreException(what + " on " + endpoint + ": " + reply);
    }
    return reply;
  }

  private static boolean flag(Object reply) throws StoreException {
    if (reply instanceof Long) {
      return (Long) reply == 1L;
    }
    throw new StoreException("unexpected script reply " + describe(reply));
  }

  private static byte[] number(long value) {
    return RespConnection.bytes(Long.toString(value));
  }

  private static String text(Object item) {
    if (item instanceof byte[]) {
      return new String((byte[]) item, StandardCharsets.UTF_8);
    }
    return String.valueOf(item);
  }

  private static String describe(Object reply) {
    return reply instanceof byte[]
        ? "bulk(" + ((byte[]) reply).length + ")"
        : String.valueOf(reply);
  }

  @Override
  public String describe() {
    return endpoint.toString();
  }

  @Override
  public void close() {
    client.close();
  }
}
