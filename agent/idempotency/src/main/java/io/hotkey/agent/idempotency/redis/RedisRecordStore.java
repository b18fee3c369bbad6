package io.hotkey.agent.idempotency.redis;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
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
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.zip.CRC32;

/**
 * Records in a Redis shared by every instance of the application, through the agent's own {@link
 * RespClient}. A record is one hash, {@code hotkey:idem:{crc}:<record key>}, holding its claim,
 * lease, fencing token and answer in the fields {@code s} (state {@code I} issued token / {@code P}
 * in progress / {@code D} done), {@code f} (fingerprint), {@code t} (fencing token), {@code o}
 * (claimer's nonce while in progress, emptied by the completion's one {@code HSET}), {@code r} (the
 * response, {@link ResponseCodec}) and, for an issued token, {@code c} (its caller's scope) and
 * {@code l} (its ttl). An issued record expires after its ttl, an in-progress one with the lease
 * ({@code PEXPIRE}), a completed one after the ttl; the remaining lease reported to a 409 is Redis'
 * own {@code PTTL}, so instances' clocks do not matter.
 *
 * <p>Every script touches that one key, so on a Redis Cluster a record is in one slot and a slot
 * migration never splits what a script needs (no {@code TRYAGAIN}): the client follows {@code ASK}
 * and {@code MOVED}. The hash tag {@code {crc}}, the CRC32 of the record key, spreads records over
 * the slots by the whole record key, so that braces in a client's key cannot gather records on one
 * slot. A fencing token is Redis' {@code TIME} in microseconds followed by three random digits from
 * the claimer: unique for a key across claims and instances. Complete and release act only while
 * the record is in progress with the caller's token. Every script is safe to repeat (a claim
 * recognises its own nonce), which lets the client retry a command whose connection broke.
 */
public final class RedisRecordStore implements RecordStore {
  public static final String PREFIX = "hotkey:idem:";

  private static final LuaScript CLAIM =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 'f', 't', 'o', 'r', 'c')",
              "local s = v[1]",
              "if ARGV[4] ~= '' then",
              "  if not s then return {'U'} end",
              "  if v[6] ~= ARGV[4] then return {'W'} end",
              "end",
              "if not s or s == 'I' then",
              "  local now = redis.call('TIME')",
              "  local t = now[1] .. string.format('%06d', tonumber(now[2])) .. ARGV[5]",
              "  redis.call('HSET', KEYS[1], 's', 'P', 'f', ARGV[1], 't', t, 'o', ARGV[3])",
              "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
              "  return {'C', t}",
              "end",
              "if s == 'P' and v[4] == ARGV[3] then return {'C', v[3]} end",
              "local left = s == 'P' and tostring(redis.call('PTTL', KEYS[1])) or '0'",
              "return {s, v[2] or '', v[3] or '0', left, v[5] or ''}"));

  private static final LuaScript ISSUE =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 'c')",
              "if v[1] then return (v[1] == 'I' and v[2] == ARGV[1]) and 1 or 0 end",
              "redis.call('HSET', KEYS[1], 's', 'I', 'c', ARGV[1], 'l', ARGV[2])",
              "redis.call('PEXPIRE', KEYS[1], ARGV[2])",
              "return 1"));

  private static final LuaScript COMPLETE =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 't')",
              "if v[2] ~= ARGV[1] then return 0 end",
              "if v[1] == 'D' then return 1 end",
              "redis.call('HSET', KEYS[1], 's', 'D', 'r', ARGV[2], 'o', '')",
              "redis.call('PEXPIRE', KEYS[1], ARGV[3])",
              "return 1"));

  private static final LuaScript RELEASE =
      new LuaScript(
          String.join(
              "\n",
              "local v = redis.call('HMGET', KEYS[1], 's', 't', 'l')",
              "if v[1] ~= 'P' or v[2] ~= ARGV[1] then return 0 end",
              "if v[3] then",
              "  redis.call('HDEL', KEYS[1], 'f', 't', 'o')",
              "  redis.call('HSET', KEYS[1], 's', 'I')",
              "  redis.call('PEXPIRE', KEYS[1], v[3])",
              "else",
              "  redis.call('DEL', KEYS[1])",
              "end",
              "return 1"));

  private static final byte[] NO_SCOPE = new byte[0];

  /**
   * Nonces and fencing digits; a DRBG, seeded when the class loads: the platform's default source
   * reads {@code /dev/urandom} on every draw, which a claim sent from an event loop must not wait
   * for.
   */
  private static final SecureRandom RANDOM = seededDrbg();

  private static SecureRandom seededDrbg() {
    try {
      SecureRandom drbg = SecureRandom.getInstance("DRBG");
      drbg.nextBytes(new byte[16]);
      return drbg;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("DRBG is required by every Java platform since 9", e);
    }
  }

  private final RedisEndpoint endpoint;
  private final RespClient client;
  private final Duration connectTimeout;
  private final Duration readTimeout;

  /**
   * Connects lazily: a Redis that is down at start only makes requests fail until it is up.
   *
   * @param probe how often a Redis that is down is tried again in the background; requests fail at
   *     once in between
   */
  public RedisRecordStore(
      RedisEndpoint endpoint,
      Duration connectTimeout,
      Duration readTimeout,
      int poolSize,
      Duration probe) {
    this.endpoint = endpoint;
    this.connectTimeout = connectTimeout;
    this.readTimeout = readTimeout;
    this.client =
        new RespClient(
            endpoint,
            (int) connectTimeout.toMillis(),
            (int) readTimeout.toMillis(),
            poolSize,
            probe.toMillis());
  }

  /** The default timeout, 2 s. */
  public RedisRecordStore(RedisEndpoint endpoint) {
    this(endpoint, Duration.ofSeconds(2));
  }

  /** 16 pooled connections per node, probed every 50 ms while down. */
  public RedisRecordStore(RedisEndpoint endpoint, Duration timeout) {
    this(endpoint, timeout, timeout, 16, Duration.ofMillis(50));
  }

  /** {@code hotkey:idem:{crc}:<record key>}, {@code crc} the record key's CRC32 in hex. */
  static byte[] redisKey(String recordKey) {
    byte[] record = recordKey.getBytes(StandardCharsets.UTF_8);
    CRC32 crc = new CRC32();
    crc.update(record);
    byte[] prefix =
        (PREFIX + "{" + Long.toHexString(crc.getValue()) + "}:")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] key = Arrays.copyOf(prefix, prefix.length + record.length);
    System.arraycopy(record, 0, key, prefix.length, record.length);
    return key;
  }

  @Override
  public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease)
      throws StoreException {
    return claim(recordKey, NO_SCOPE, fingerprint, lease);
  }

  @Override
  public ClaimResult claimIssued(String recordKey, String scope, byte[] fingerprint, Duration lease)
      throws StoreException {
    return claim(recordKey, RespConnection.bytes(scope), fingerprint, lease);
  }

  @Override
  public boolean issue(String recordKey, String scope, Duration ttl) throws StoreException {
    Object reply =
        eval(
            "issue",
            ISSUE,
            new byte[][] {redisKey(recordKey)},
            RespConnection.bytes(scope),
            number(Math.max(1, ttl.toMillis())));
    return flag(reply);
  }

  private ClaimResult claim(String recordKey, byte[] scope, byte[] fingerprint, Duration lease)
      throws StoreException {
    return claimResult(
        eval(
            "claim",
            CLAIM,
            new byte[][] {redisKey(recordKey)},
            claimArgs(scope, fingerprint, lease)));
  }

  /** The claim script's arguments, with a fresh nonce and fencing digits. */
  private static byte[][] claimArgs(byte[] scope, byte[] fingerprint, Duration lease) {
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    return new byte[][] {
      fingerprint,
      number(Math.max(1, lease.toMillis())),
      nonce,
      scope,
      threeDigits(RANDOM.nextInt(1000))
    };
  }

  private static ClaimResult claimResult(Object reply) throws StoreException {
    try {
      List<?> items = (List<?>) reply;
      String state = text(items.get(0));
      switch (state) {
        case "C":
          return ClaimResult.claimed(Long.parseLong(text(items.get(1))));
        case "U":
          return ClaimResult.notIssued();
        case "W":
          return ClaimResult.wrongCaller();
        default:
          break;
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
    return checked(what, reply);
  }

  private Object checked(String what, Object reply) throws StoreException {
    if (reply instanceof RespError) {
      throw new StoreException(what + " on " + endpoint + ": " + reply);
    }
    return reply;
  }

  /**
   * This store's records reached through {@code transport}: the same scripts, replies and failures
   * as the blocking calls, none of them waiting on a thread. A Redis Cluster's redirection ({@code
   * MOVED}, {@code ASK}, {@code TRYAGAIN}), which the transport does not follow, sends that call
   * and every later one to this store's blocking client on {@code blockingCalls}.
   */
  public AsyncRecordStore over(RespTransport transport, Executor blockingCalls) {
    return new TransportCalls(transport, blockingCalls);
  }

  /** A reply to turn into a result, or a StoreException. */
  private interface Reply<T> {
    T read(Object reply) throws StoreException;
  }

  private final class TransportCalls implements AsyncRecordStore {
    private final RespTransport transport;
    private final Executor blockingCalls;

    /**
     * Set by the first redirection: the Redis is a cluster, which only the blocking client follows.
     */
    private volatile boolean clustered;

    TransportCalls(RespTransport transport, Executor blockingCalls) {
      this.transport = transport;
      this.blockingCalls = blockingCalls;
    }

    @Override
    public CompletionStage<ClaimResult> claim(
        String recordKey, byte[] fingerprint, Duration lease) {
      return call(
          "claim",
          CLAIM,
          recordKey,
          claimArgs(NO_SCOPE, fingerprint, lease),
          RedisRecordStore::claimResult,
          () -> RedisRecordStore.this.claim(recordKey, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> issue(String recordKey, String scope, Duration ttl) {
      return call(
          "issue",
          ISSUE,
          recordKey,
          new byte[][] {RespConnection.bytes(scope), number(Math.max(1, ttl.toMillis()))},
          RedisRecordStore::flag,
          () -> RedisRecordStore.this.issue(recordKey, scope, ttl));
    }

    @Override
    public CompletionStage<ClaimResult> claimIssued(
        String recordKey, String scope, byte[] fingerprint, Duration lease) {
      return call(
          "claim",
          CLAIM,
          recordKey,
          claimArgs(RespConnection.bytes(scope), fingerprint, lease),
          RedisRecordStore::claimResult,
          () -> RedisRecordStore.this.claimIssued(recordKey, scope, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> complete(
        String recordKey, long token, HttpAnswer response, Duration ttl) {
      return call(
          "complete",
          COMPLETE,
          recordKey,
          new byte[][] {
            number(token), ResponseCodec.encode(response), number(Math.max(1, ttl.toMillis()))
          },
          RedisRecordStore::flag,
          () -> RedisRecordStore.this.complete(recordKey, token, response, ttl));
    }

    @Override
    public CompletionStage<Boolean> release(String recordKey, long token) {
      return call(
          "release",
          RELEASE,
          recordKey,
          new byte[][] {number(token)},
          RedisRecordStore::flag,
          () -> RedisRecordStore.this.release(recordKey, token));
    }

    /** EVALSHA, then EVAL if Redis does not know the script (a restart, SCRIPT FLUSH). */
    private <T> CompletionStage<T> call(
        String what,
        LuaScript script,
        String recordKey,
        byte[][] args,
        Reply<T> reading,
        AsyncRecordStore.Call<T> blocking) {
      if (clustered) {
        return onBlockingClient(blocking);
      }
      byte[][] keys = {redisKey(recordKey)};
      return transport
          .send(script.command(true, keys, args))
          .thenCompose(
              reply ->
                  reply instanceof RespError && ((RespError) reply).isNoScript()
                      ? transport.send(script.command(false, keys, args))
                      : CompletableFuture.completedFuture(reply))
          .handle(
              (reply, failure) -> {
                if (failure != null) {
                  Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                  return CompletableFuture.<T>failedFuture(
                      new StoreException(
                          what + " on " + endpoint + ": " + cause.getMessage(), cause));
                }
                if (isRedirection(reply)) {
                  clustered = true;
                  return onBlockingClient(blocking);
                }
                return AsyncRecordStore.now(() -> reading.read(checked(what, reply)));
              })
          .thenCompose(result -> result);
    }

    private <T> CompletionStage<T> onBlockingClient(AsyncRecordStore.Call<T> blocking) {
      CompletableFuture<T> result = new CompletableFuture<>();
      try {
        blockingCalls.execute(
            () ->
                AsyncRecordStore.now(blocking)
                    .whenComplete(
                        (value, failure) -> {
                          if (failure != null) {
                            result.completeExceptionally(failure);
                          } else {
                            result.complete(value);
                          }
                        }));
      } catch (RuntimeException rejected) {
        result.completeExceptionally(
            new StoreException("no thread for a blocking call: " + rejected, rejected));
      }
      return result;
    }

    @Override
    public String describe() {
      return endpoint.toString();
    }
  }

  private static boolean isRedirection(Object reply) {
    if (!(reply instanceof RespError)) {
      return false;
    }
    String message = ((RespError) reply).message();
    return message.startsWith("MOVED ")
        || message.startsWith("ASK ")
        || message.startsWith("TRYAGAIN");
  }

  /** The server this store's records live on (the seed node of a cluster). */
  public RedisEndpoint endpoint() {
    return endpoint;
  }

  /** How long a connection may take to open. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** How long a command's reply may take. */
  public Duration readTimeout() {
    return readTimeout;
  }

  private static boolean flag(Object reply) throws StoreException {
    if (reply instanceof Long) {
      return (Long) reply == 1L;
    }
    throw new StoreException("unexpected script reply " + describe(reply));
  }

  /** {@code value} (0 to 999) as three ASCII digits, without parsing a format pattern per claim. */
  static byte[] threeDigits(int value) {
    return new byte[] {
      (byte) ('0' + value / 100), (byte) ('0' + value / 10 % 10), (byte) ('0' + value % 10)
    };
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
