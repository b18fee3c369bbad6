package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;

import io.hotkey.it.app.results.LifecycleResults;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * Connections on their abnormal paths, for Jedis 4+ (compiled against 4.4.8, calling only API whose
 * binary signature holds up to 8.x, the rest through {@link Ops}): pipelines and transactions left
 * by an exception, closed unsynced, timed out in the middle, or abandoned by a thread that dies, on
 * plain and pooled connections; then every kind of write made afterwards on the same thread must be
 * seen by the next read; a closed pooled client's reads must fail as without the agent. And
 * connections that change who they are (AUTH, HELLO AUTH, SELECT), or pools of two users on one
 * endpoint, must never be served what the other identity read.
 *
 * <p>Every check compares the answer the agent let through with the one a {@link RawRedis}
 * connection gets, and reports its {@link LifecycleResults#OUTCOME}, {@code ok} or what differed;
 * the test decides. Usage: {@code --scenario abandon|identity --redis host:port}.
 */
public final class JedisLifecycleApp {
  private static final Class<?>[] S = {String.class};
  private static final Class<?>[] SS = {String.class, String.class};
  private static final Class<?>[] SSA = {String.class, String[].class};
  private static final Class<?>[] NONE = {};
  private static final byte[] HELLO = "HELLO".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final String host;
  private final int port;
  private final RawRedis raw;

  private JedisLifecycleApp(String host, int port) {
    this.host = host;
    this.port = port;
    this.raw = new RawRedis(host, port);
  }

  public static void main(String[] args) {
    AppArgs a = AppArgs.parse(args);
    JedisLifecycleApp app = new JedisLifecycleApp(a.host(), a.port());
    Child.runAndExit(
        () -> {
          switch (a.get("scenario")) {
            case "abandon" -> app.abandon();
            case "identity" -> app.identity();
            default -> throw new IllegalArgumentException("unknown scenario " + a.get("scenario"));
          }
        },
        true);
  }

  // ------------------------------------------------------------------------------------------
  // abandon: whatever a connection left behind, later writes on the thread invalidate

  private void abandon() throws Exception {
    GenericObjectPoolConfig<Jedis> poolConfig = new GenericObjectPoolConfig<>();
    try (JedisPool pool = new JedisPool(poolConfig, host, port, 300);
        UnifiedJedis pooledClient = PooledReads.open(host, port);
        Jedis reader = new Jedis(host, port);
        Jedis writer = new Jedis(host, port)) {
      afterAbandoning(
          "plainPipeline",
          reader,
          writer,
          other -> leaveOpen(() -> new Jedis(host, port), other, true));
      afterAbandoning(
          "plainTransaction",
          reader,
          writer,
          other -> leaveOpen(() -> new Jedis(host, port), other, false));
      afterAbandoning(
          "pooledPipeline", reader, writer, other -> leaveOpen(pool::getResource, other, true));
      afterAbandoning(
          "pooledTransaction", reader, writer, other -> leaveOpen(pool::getResource, other, false));
      afterAbandoning(
          "plainPipelineTimedOut",
          reader,
          writer,
          other -> timeOut(() -> new Jedis(host, port, 300), other));
      // the broken connection goes back to the pool, which destroys it
      afterAbandoning(
          "pooledPipelineTimedOut", reader, writer, other -> timeOut(pool::getResource, other));
      afterAbandoning(
          "threadDiedInPipeline",
          reader,
          writer,
          other -> {
            Thread dying =
                new Thread(
                    () -> {
                      Jedis j = new Jedis(host, port);
                      Pipeline p = j.pipelined();
                      p.set(other, "x");
                      p.get(other);
                      throw new IllegalStateException("the thread dies with its pipeline open");
                    });
            dying.setUncaughtExceptionHandler((thread, e) -> {});
            dying.start();
            join(dying);
          });
      afterAbandoning(
          "unifiedPipelineAbandoned",
          pooledClient,
          pooledClient,
          other -> {
            Object p = Ops.call(pooledClient, "pipelined", NONE);
            Ops.call(p, "set", SS, other, "x");
            // never synced nor closed: its connection stays borrowed
          });
      afterAbandoning(
          "unifiedPipelineClosedUnsynced",
          pooledClient,
          writer,
          other -> {
            Object p = Ops.call(pooledClient, "pipelined", NONE);
            Ops.call(p, "set", SS, other, "x");
            Ops.call(p, "close", NONE);
          });
    }
    closedPooledClient();
  }

  /**
   * A pooled client the application closed: a read of a key it was served locally throws, as
   * without the agent (the closed pool lends no connection), rather than being answered.
   */
  private void closedPooledClient() {
    String name = "closedPooledClient";
    String key = "closed:k";
    raw.call("SET", key, "v0");
    UnifiedJedis client = PooledReads.open(host, port);
    Child.warmUp(
        LifecycleResults.warmUp(name),
        List.of(key),
        Child.reading(() -> client.get(key)),
        8000,
        3000);
    long before = hits();
    for (int reads = 0; reads < 500 && hits() == before; reads++) {
      Object unused = client.get(key);
    }
    result(LifecycleResults.SERVED_LOCALLY.of(name), hits() > before);
    client.close();
    String outcome;
    try {
      outcome = "read " + client.get(key) + " on a closed client";
    } catch (RuntimeException expected) {
      outcome = "ok";
    }
    result(LifecycleResults.OUTCOME.of(name), outcome);
  }

  /**
   * Queues a SET in a pipeline (or MULTI) and leaves it by an exception, closing the connection (or
   * returning it).
   */
  private static void leaveOpen(
      java.util.function.Supplier<Jedis> connection, String key, boolean pipeline) {
    try (Jedis j = connection.get()) {
      if (pipeline) {
        j.pipelined().set(key, "x");
      } else {
        j.multi().set(key, "x");
      }
      throw new IllegalStateException("abandoned");
    } catch (IllegalStateException expected) {
      // the application gave up on it
    }
  }

  /**
   * A pipeline whose reply read times out in the middle (the connection's timeout is 300 ms, BLPOP
   * waits 2 s).
   */
  private static void timeOut(java.util.function.Supplier<Jedis> connection, String key) {
    try (Jedis j = connection.get()) {
      Pipeline p = j.pipelined();
      p.set(key, "x");
      Ops.call(
          p, "blpop", new Class<?>[] {int.class, String[].class}, 2, new String[] {key + ":list"});
      p.sync();
      throw new IllegalStateException("the pipeline did not time out");
    } catch (RuntimeException expected) {
      if (!expected.getClass().getName().contains("JedisConnectionException")) {
        throw expected;
      }
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One write kind, and the read that must see it: both run on the calling thread. */
  private static final class WriteThenRead {
    final String name;
    final Consumer<Object> write;
    final Function<Object, String> read;
    final Function<RawRedis, String> truth;

    WriteThenRead(
        String name,
        Consumer<Object> write,
        Function<Object, String> read,
        Function<RawRedis, String> truth) {
      this.name = name;
      this.write = write;
      this.read = read;
      this.truth = truth;
    }
  }

  private static List<WriteThenRead> writes(String p) {
    String str = p + "str";
    String hash = p + "hash";
    String list = p + "list";
    String set = p + "set";
    String zset = p + "zset";
    List<WriteThenRead> w = new ArrayList<>();
    Function<Object, String> get = c -> String.valueOf(Ops.call(c, "get", S, str));
    Function<RawRedis, String> rawGet = r -> String.valueOf(r.call("GET", str));
    w.add(new WriteThenRead("set", c -> Ops.call(c, "set", SS, str, "v1"), get, rawGet));
    w.add(new WriteThenRead("append", c -> Ops.call(c, "append", SS, str, "+a"), get, rawGet));
    w.add(new WriteThenRead("del", c -> Ops.del(c, str), get, rawGet));
    w.add(
        new WriteThenRead(
            "hset",
            c -> Ops.hset(c, hash, "f", "h1"),
            c -> String.valueOf(Ops.call(c, "hget", SS, hash, "f")),
            r -> String.valueOf(r.call("HGET", hash, "f"))));
    w.add(
        new WriteThenRead(
            "hdel",
            c -> Ops.hdel(c, hash, "f"),
            c -> String.valueOf(Ops.call(c, "hget", SS, hash, "f")),
            r -> String.valueOf(r.call("HGET", hash, "f"))));
    w.add(
        new WriteThenRead(
            "lpush",
            c -> Ops.call(c, "lpush", SSA, list, new String[] {"l1"}),
            c ->
                Ops.canonList(
                    (Collection<?>)
                        Ops.call(
                            c,
                            "lrange",
                            new Class<?>[] {String.class, long.class, long.class},
                            list,
                            0L,
                            -1L)),
            r -> Ops.canonList((Collection<?>) r.call("LRANGE", list, "0", "-1"))));
    w.add(
        new WriteThenRead(
            "srem",
            c -> Ops.call(c, "srem", SSA, set, new String[] {"m1"}),
            c -> Ops.canonSet((Collection<?>) Ops.call(c, "smembers", S, set)),
            r -> Ops.canonSet((Collection<?>) r.call("SMEMBERS", set))));
    w.add(
        new WriteThenRead(
            "zadd",
            c -> Ops.zadd(c, zset, 9, "z9"),
            c -> Ops.canonList(Ops.zrange(c, zset)),
            r -> Ops.canonList((Collection<?>) r.call("ZRANGE", zset, "0", "-1"))));
    w.add(new WriteThenRead("flushall", c -> Ops.call(c, "flushAll", NONE), get, rawGet));
    return w;
  }

  private void populate(String p) {
    raw.call("SET", p + "str", "v0");
    raw.call("HSET", p + "hash", "f", "h0");
    raw.call("RPUSH", p + "list", "l0");
    raw.call("SADD", p + "set", "m0", "m1");
    raw.call("ZADD", p + "zset", "1", "z1");
  }

  /**
   * Makes the case's keys hot and served, runs {@code abandon} (given a key of its own to write),
   * then checks every write kind made through {@code writer} on this thread against the next read
   * through {@code reader}.
   */
  private void afterAbandoning(
      String name, Object reader, Object writer, Consumer<String> abandon) {
    String p = name + ":";
    populate(p);
    List<WriteThenRead> writes = writes(p);
    List<String> keys = List.of(p + "str", p + "hash", p + "list", p + "set", p + "zset");
    Runnable readAll =
        () -> {
          for (WriteThenRead w : writes) {
            Object unused = w.read.apply(reader);
          }
        };
    Child.warmUp(LifecycleResults.warmUp(name), keys, readAll, 8000, 3000);
    long hitsBefore = hits();
    readAll.run();
    readAll.run();
    result(LifecycleResults.SERVED_LOCALLY.of(name), hits() > hitsBefore);
    abandon.accept(p + "abandoned");
    List<String> stale = new ArrayList<>();
    for (WriteThenRead w : writes) {
      readAll.run();
      w.write.accept(writer);
      String seen = w.read.apply(reader);
      String truth = w.truth.apply(raw);
      if (!Objects.equals(seen, truth)) {
        stale.add(w.name + ": read " + seen + ", Redis has " + truth);
      }
      populate(p);
    }
    result(LifecycleResults.OUTCOME.of(name), stale.isEmpty() ? "ok" : String.join("; ", stale));
  }

  private static long hits() {
    Object hits = Child.jmx("CacheHits");
    return hits instanceof Long l ? l : -1;
  }

  // ------------------------------------------------------------------------------------------
  // identity: a connection is only ever served what its own user, database and protocol may read

  private void identity() {
    raw.call("ACL", "SETUSER", "limited", "reset", "on", ">pw", "~cached:*", "+@all");
    raw.call("SET", "secret", "s3cret");
    raw.call("SET", "cached:ok", "fine");
    try (Jedis j = new Jedis(host, port)) {
      afterIdentityChange("auth", j, () -> j.auth("limited", "pw"));
    }
    try (Jedis j = new Jedis(host, port)) {
      afterIdentityChange(
          "helloAuth",
          j,
          () ->
              Ops.call(
                  j,
                  "sendCommand",
                  new Class<?>[] {ProtocolCommand.class, String[].class},
                  (ProtocolCommand) () -> HELLO,
                  new String[] {"2", "AUTH", "limited", "pw"}));
    }
    try (JedisPool admins = new JedisPool(host, port);
        JedisPool limited =
            new JedisPool(new GenericObjectPoolConfig<>(), host, port, 2000, "limited", "pw")) {
      try (Jedis admin = admins.getResource()) {
        Child.warmUp(
            LifecycleResults.warmUp("pools"),
            List.of("secret"),
            () -> admin.get("secret"),
            8000,
            3000);
        admin.get("secret");
      }
      try (Jedis user = limited.getResource()) {
        result(
            LifecycleResults.OUTCOME.of("poolOfAnotherUser"),
            expectNoPerm(() -> user.get("secret")));
      }
    }
    try (Jedis j = new Jedis(host, port);
        RawRedis db1 = new RawRedis(host, port)) {
      raw.call("SET", "dbkey", "db0");
      db1.call("SELECT", "1");
      db1.call("SET", "dbkey", "db1");
      Child.warmUp(
          LifecycleResults.warmUp("select"), List.of("dbkey"), () -> j.get("dbkey"), 8000, 3000);
      j.get("dbkey");
      j.select(1);
      String seen = j.get("dbkey");
      result(
          LifecycleResults.OUTCOME.of("select"),
          "db1".equals(seen) ? "ok" : "read " + seen + " in db 1, Redis has db1");
    }
    try (Jedis j = new Jedis(host, port)) {
      Child.warmUp(
          LifecycleResults.warmUp("failedAuth"),
          List.of("secret"),
          () -> j.get("secret"),
          8000,
          3000);
      String failure;
      try {
        j.auth("limited", "wrong");
        failure = "AUTH with a wrong password succeeded";
      } catch (RuntimeException expected) {
        String seen = j.get("secret");
        failure =
            "s3cret".equals(seen)
                ? null
                : "read " + seen + " after a failed AUTH, Redis has s3cret";
      }
      result(LifecycleResults.OUTCOME.of("failedAuth"), failure == null ? "ok" : failure);
    }
  }

  private void afterIdentityChange(String name, Jedis j, Runnable change) {
    Child.warmUp(
        LifecycleResults.warmUp(name), List.of("secret"), () -> j.get("secret"), 8000, 3000);
    long hitsBefore = hits();
    for (int i = 0; i < 3; i++) {
      j.get("secret");
    }
    result(LifecycleResults.SERVED_LOCALLY.of(name), hits() > hitsBefore);
    change.run();
    result(LifecycleResults.OUTCOME.of(name), expectNoPerm(() -> j.get("secret")));
  }

  private static String expectNoPerm(java.util.function.Supplier<String> read) {
    try {
      return "read " + read.get() + " where Redis answers NOPERM";
    } catch (RuntimeException e) {
      return String.valueOf(e.getMessage()).contains("NOPERM") ? "ok" : "failed otherwise: " + e;
    }
  }
}
