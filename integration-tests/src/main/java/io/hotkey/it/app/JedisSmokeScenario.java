package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.DatabasesResults;
import io.hotkey.it.app.results.JedisSmokeResults;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * The {@code smoke} scenario of {@link JedisScenarioApp} for every Jedis from 3.0: only API whose
 * binary signature every release shares with the Jedis the app is compiled against ({@code
 * ShardedJedis}, Jedis 3's alone, through reflection). Every answer is checked against the value
 * written, and every answer the app gets is scribbled over, as an application may: a shared object
 * would spoil later reads.
 */
final class JedisSmokeScenario {
  static final String STR = "j3:str";
  static final byte[] STR_BYTES = STR.getBytes(StandardCharsets.UTF_8);
  static final String HASH = "j3:hash";
  static final String LIST = "j3:list";
  static final int PIPELINED = 50;
  static final int IN_TRANSACTION = 20;
  static final int SERVED = 200;
  static final int WRITES = 100;

  private JedisSmokeScenario() {}

  /** Answers unlike the expected ones, with the first few described. */
  static final class Mismatches {
    long count;
    final List<String> examples = new ArrayList<>();

    void check(String what, Object expected, Object actual) {
      if (!String.valueOf(expected).equals(String.valueOf(actual))) {
        count++;
        if (examples.size() < 5) {
          examples.add(what + ": expected " + expected + " got " + actual);
        }
      }
    }
  }

  static void run(String host, int port, int n) throws Exception {
    Mismatches m = new Mismatches();
    try (JedisPool pool = new JedisPool(host, port);
        Jedis j = pool.getResource();
        Jedis other = pool.getResource()) {
      Ops.del(j, HASH);
      Ops.del(j, LIST);
      j.set(STR, "v0");
      Ops.hset(j, HASH, "f1", "a");
      Ops.hset(j, HASH, "f2", "b");
      Ops.rpush(j, LIST, "l1", "l2", "l3");
      Child.warmUp(
          JedisSmokeResults.WARMUP,
          List.of(STR, HASH, LIST),
          () -> reads(m, j, other, "v0"),
          8000,
          3000);
      sync("smoke");
      for (int i = 0; i < n; i++) {
        reads(m, i % 2 == 0 ? j : other, i % 2 == 0 ? other : j, "v0");
      }
      sync("smoke-done");
      result(JedisSmokeResults.READS, 4L * n);
      sharded(m, host, port, n);
      for (int w = 1; w <= WRITES; w++) {
        String value = "w" + w;
        j.set(STR, value);
        m.check("get after set", value, j.get(STR));
        m.check("get after set, another connection", value, other.get(STR));
        m.check("binary get after set", value, text(other.get(STR_BYTES)));
        Ops.hset(other, HASH, "f1", value);
        m.check("hgetall after hset", "{f1=" + value + ", f2=b}", sorted(j.hgetAll(HASH)));
      }
      result(JedisSmokeResults.WRITES, (long) WRITES * 2);
      String last = "w" + WRITES;
      otherDatabase(m, host, port, j, last);
      pipelineAndTransaction(m, j, last);
      foreignWrite(m, j, other, last);
    }
    result(JedisSmokeResults.MISMATCHES, m.count);
    result(JedisSmokeResults.EXAMPLES, m.examples);
    Child.reportJmx(JedisSmokeResults.JMX);
  }

  /** One round of reads of the hot keys, each answer scribbled over once checked. */
  static void reads(Mismatches m, Jedis one, Jedis another, String value) {
    m.check("get", value, one.get(STR));
    byte[] bytes = another.get(STR_BYTES);
    m.check("binary get", value, text(bytes));
    if (bytes != null && bytes.length > 0) {
      bytes[0] = 'X';
    }
    Map<String, String> hash = one.hgetAll(HASH);
    m.check("hgetall", "{f1=a, f2=b}", sorted(hash));
    scribble(() -> hash.put("f1", "scribbled"));
    List<String> list = another.lrange(LIST, 0, -1);
    m.check("lrange", "[l1, l2, l3]", list);
    scribble(() -> list.set(0, "scribbled"));
  }

  /**
   * The hot key in database 2, through a {@code Jedis} whose URI names it. Disconnected, Jedis 3
   * reconnects in the database its client still names ({@code getDB}: 0 on every 3.x), and its
   * reads must then get that database's value, not the entries of database 2; a {@code SELECT 2}
   * brings it back. A write in one database leaves the other's value alone.
   */
  static void otherDatabase(Mismatches m, String host, int port, Jedis db0, String db0Value) {
    try (Jedis db2 = new Jedis(URI.create("redis://" + host + ":" + port + "/2"))) {
      db2.set(STR, "db2");
      for (int i = 0; i < SERVED; i++) {
        m.check("get in db 2", "db2", db2.get(STR));
        m.check("get in db 0 beside db 2", db0Value, db0.get(STR));
      }
      db2.disconnect();
      String reconnected = db2.getDB() == 2 ? "db2" : db0Value;
      for (int i = 0; i < SERVED; i++) {
        m.check("get after a reconnect in db " + db2.getDB(), reconnected, db2.get(STR));
      }
      db2.select(2);
      for (int i = 0; i < SERVED; i++) {
        m.check("get in db 2 selected again", "db2", db2.get(STR));
      }
      db2.set(STR, "db2-b");
      m.check("get in db 2 after set", "db2-b", db2.get(STR));
      m.check("get in db 0 after a set in db 2", db0Value, db0.get(STR));
    }
  }

  /**
   * The {@code databases} scenario of {@link JedisScenarioApp}, on any Jedis from 3.0: the key hot
   * in database 0, then {@link #otherDatabase}.
   */
  static void databases(String host, int port) {
    Mismatches m = new Mismatches();
    try (Jedis db0 = new Jedis(host, port)) {
      db0.set(STR, "db0");
      Child.warmUp(
          DatabasesResults.WARMUP,
          List.of(STR),
          () -> m.check("get", "db0", db0.get(STR)),
          8000,
          3000);
      otherDatabase(m, host, port, db0, "db0");
    }
    result(DatabasesResults.MISMATCHES, m.count);
    result(DatabasesResults.EXAMPLES, m.examples);
    Child.reportJmx(DatabasesResults.JMX);
  }

  /**
   * GETs of the hot key through {@code ShardedJedis} (one shard), which reads through a Jedis; none
   * from Jedis 4, which has no {@code ShardedJedis}.
   */
  static void sharded(Mismatches m, String host, int port, int n) throws Exception {
    Class<?> shardedType;
    try {
      shardedType = Class.forName("redis.clients.jedis.ShardedJedis");
    } catch (ClassNotFoundException jedis4OrLater) {
      result(JedisSmokeResults.SHARDED_GETS, 0L);
      return;
    }
    Class<?> shardInfo = Class.forName("redis.clients.jedis.JedisShardInfo");
    Object info = shardInfo.getConstructor(String.class, int.class).newInstance(host, port);
    try (AutoCloseable sharded =
        (AutoCloseable) shardedType.getConstructor(List.class).newInstance(List.of(info))) {
      java.lang.reflect.Method get = shardedType.getMethod("get", String.class);
      get.invoke(sharded, STR);
      sync("sharded");
      for (int i = 0; i < n; i++) {
        m.check("sharded get", "v0", get.invoke(sharded, STR));
      }
      sync("sharded-done");
    }
    result(JedisSmokeResults.SHARDED_GETS, (long) n);
  }

  static void pipelineAndTransaction(Mismatches m, Jedis j, String value) {
    sync("pipeline");
    Pipeline p = j.pipelined();
    List<Response<String>> gets = new ArrayList<>();
    for (int i = 0; i < PIPELINED; i++) {
      gets.add(p.get(STR));
    }
    p.sync();
    for (Response<String> get : gets) {
      m.check("pipelined get", value, get.get());
    }
    sync("pipeline-done");
    result(JedisSmokeResults.PIPELINED_GETS, (long) PIPELINED);
    sync("multi");
    Transaction t = j.multi();
    for (int i = 0; i < IN_TRANSACTION; i++) {
      t.get(STR);
    }
    List<Object> replies = t.exec();
    m.check("transaction gets", Arrays.toString(nCopies(value)), String.valueOf(replies));
    sync("multi-done");
    result(JedisSmokeResults.TRANSACTION_GETS, (long) IN_TRANSACTION);
  }

  private static String[] nCopies(String value) {
    String[] copies = new String[IN_TRANSACTION];
    Arrays.fill(copies, value);
    return copies;
  }

  /**
   * The hot key read (served), then written by the test's own process at SYNC foreign: read until
   * the new value shows (tracking's invalidation is asynchronous), each read the old value or the
   * new one, and never the old one again once the new showed.
   */
  static void foreignWrite(Mismatches m, Jedis j, Jedis other, String value) throws Exception {
    sync("served");
    for (int i = 0; i < SERVED; i++) {
      m.check("served get", value, (i % 2 == 0 ? j : other).get(STR));
    }
    result(JedisSmokeResults.SERVED_GETS, (long) SERVED);
    String written = sync("foreign");
    long start = System.nanoTime();
    long seenMillis = -1;
    for (int i = 0;
        seenMillis < 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10);
        i++) {
      String read = (i % 2 == 0 ? j : other).get(STR);
      if (written.equals(read)) {
        seenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      } else {
        m.check("get before the foreign write shows", value, read);
        Thread.sleep(1);
      }
    }
    for (int i = 0; seenMillis >= 0 && i < SERVED; i++) {
      m.check("get after the foreign write showed", written, (i % 2 == 0 ? j : other).get(STR));
    }
    result(JedisSmokeResults.FOREIGN_WRITE_MILLIS, seenMillis);
  }

  /**
   * Jedis' collections are mutable on every version; should one not be, there is nothing to spoil.
   */
  private static void scribble(Runnable change) {
    try {
      change.run();
    } catch (UnsupportedOperationException immutable) {
      // nothing shared can be spoiled through it
    }
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static String sorted(Map<String, String> map) {
    return new TreeMap<>(map).toString();
  }
}
