package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.CoreResults;
import io.hotkey.it.app.results.CoreResults.CoreRead;
import io.hotkey.it.app.results.RunResults;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * The core scenario of {@link JedisScenarioApp}: detection, local serving and the correctness of
 * its answers (fresh objects, every read type), pipelines and transactions never served, and
 * invalidation by writes, on the keys the tests pre-populate ({@link JedisScenarioApp#STR} …).
 */
final class JedisCoreScenario {
  private JedisCoreScenario() {}

  /** A read on a Jedis, and how its answer is written for comparison. */
  static final class Read {
    final CoreRead name;
    final Function<Jedis, Object> op;
    final Function<Object, String> canon;

    Read(CoreRead name, Function<Jedis, Object> op, Function<Object, String> canon) {
      this.name = name;
      this.op = op;
      this.canon = canon;
    }
  }

  @SuppressWarnings("unchecked")
  static List<Read> coreReads() {
    List<Read> r = new ArrayList<>();
    r.add(new Read(CoreRead.GET, j -> j.get(JedisScenarioApp.STR), String::valueOf));
    r.add(
        new Read(
            CoreRead.GET_BYTES,
            j -> j.get(JedisScenarioApp.STR.getBytes(StandardCharsets.UTF_8)),
            o -> o == null ? "null" : new String((byte[]) o, StandardCharsets.UTF_8)));
    r.add(new Read(CoreRead.HGET, j -> j.hget(JedisScenarioApp.HASH, "f1"), String::valueOf));
    r.add(
        new Read(
            CoreRead.HGETALL,
            j -> j.hgetAll(JedisScenarioApp.HASH),
            o -> Ops.canonMap((Map<?, ?>) o)));
    r.add(
        new Read(
            CoreRead.LRANGE,
            j -> j.lrange(JedisScenarioApp.LIST, 0, -1),
            o -> Ops.canonList((Collection<?>) o)));
    r.add(
        new Read(
            CoreRead.SMEMBERS,
            j -> j.smembers(JedisScenarioApp.SET),
            o -> Ops.canonSet((Collection<?>) o)));
    r.add(
        new Read(
            CoreRead.ZRANGE,
            j -> Ops.zrange(j, JedisScenarioApp.ZSET),
            o -> Ops.canonList((Collection<?>) o)));
    return r;
  }

  /**
   * Tries to corrupt an answer the way a careless application might; returns false if it was
   * immutable.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static boolean mutate(Object o) {
    try {
      if (o instanceof byte[] array) {
        Arrays.fill(array, (byte) '#');
      } else if (o instanceof Map map) {
        map.clear();
        map.put("mutated", "mutated");
      } else if (o instanceof Collection collection) {
        collection.clear();
        collection.add("mutated");
      }
      return true;
    } catch (UnsupportedOperationException e) {
      return false;
    }
  }

  static void run(String host, int port, int major, int n) {
    List<Read> reads = coreReads();
    try (JedisPool pool = new JedisPool(host, port)) {
      Jedis j = pool.getResource();
      // First answers come from Redis (nothing is hot yet): the reference for type and value.
      String[] expected = new String[reads.size()];
      for (int i = 0; i < reads.size(); i++) {
        Read rd = reads.get(i);
        Object o = rd.op.apply(j);
        expected[i] = rd.canon.apply(o);
        result(CoreResults.firstValue(rd.name), expected[i]);
        result(CoreResults.firstClass(rd.name), o == null ? "null" : o.getClass().getName());
      }
      Child.warmUp(
          CoreResults.WARMUP,
          Arrays.asList(
              JedisScenarioApp.STR,
              JedisScenarioApp.HASH,
              JedisScenarioApp.LIST,
              JedisScenarioApp.SET,
              JedisScenarioApp.ZSET),
          () -> {
            for (Read rd : reads) {
              Object unused = rd.op.apply(j);
            }
          },
          8000,
          3000);
      Child.reportJmx(CoreResults.AFTER_WARMUP_JMX);

      sync("reads");
      for (int i = 0; i < reads.size(); i++) {
        Read rd = reads.get(i);
        int count = rd.name == CoreRead.GET || rd.name == CoreRead.GET_BYTES ? n : n / 2;
        long mismatches = 0;
        long immutable = 0;
        String last = null;
        String cls = null;
        for (int k = 0; k < count; k++) {
          Object o = rd.op.apply(j);
          last = rd.canon.apply(o);
          if (!last.equals(expected[i])) {
            mismatches++;
          }
          cls = o == null ? "null" : o.getClass().getName();
          if (k % 50 == 7 && !mutate(o)) {
            immutable++;
          }
        }
        result(CoreResults.readCount(rd.name), (long) count);
        result(CoreResults.readMismatches(rd.name), mismatches);
        result(CoreResults.lastValue(rd.name), last);
        result(CoreResults.lastClass(rd.name), cls);
        result(CoreResults.immutableAnswers(rd.name), immutable);
      }
      sync("reads-done");
      Child.reportJmx(CoreResults.AFTER_READS_JMX);

      if (major >= 4) {
        sync("pooled");
        PooledReads.run(
            host, port, n, JedisScenarioApp.STR, expected[0], () -> j.get(JedisScenarioApp.STR));
        sync("pooled-done");
      }

      // invariant 2: non-deterministic reads of a hot key are never answered locally
      int sr = 200;
      sync("srandmember");
      long srBad = 0;
      for (int k = 0; k < sr; k++) {
        String m = j.srandmember(JedisScenarioApp.SET);
        if (!"x".equals(m) && !"y".equals(m) && !"z".equals(m)) {
          srBad++;
        }
      }
      result(CoreResults.SRANDMEMBER_CALLS, (long) sr);
      result(CoreResults.SRANDMEMBER_NOT_A_MEMBER, srBad);
      sync("srandmember-done");

      // (e) pipelines: every GET goes to Redis, values correct.
      int p = 50;
      sync("pipeline");
      Pipeline pl = j.pipelined();
      List<Response<String>> rs = new ArrayList<>();
      for (int k = 0; k < p; k++) {
        rs.add(pl.get(JedisScenarioApp.STR));
      }
      pl.sync();
      pl.close();
      result(CoreResults.PIPELINE_GETS, (long) p);
      result(
          CoreResults.PIPELINE_MISMATCHES,
          rs.stream().filter(x -> !expected[0].equals(x.get())).count());
      sync("pipeline-done");

      // (e) transactions: every GET goes to Redis, values correct.
      int t = 20;
      sync("multi");
      Transaction tx = j.multi();
      for (int k = 0; k < t; k++) {
        tx.get(JedisScenarioApp.STR);
      }
      List<Object> ex = tx.exec();
      result(CoreResults.MULTI_GETS, (long) t);
      result(
          CoreResults.MULTI_MISMATCHES,
          ex == null ? -1 : ex.stream().filter(x -> !expected[0].equals(x)).count());
      sync("multi-done");

      // Writes invalidate, whatever path they take; read back on this and on another connection.
      try (Jedis other = pool.getResource()) {
        Pipeline pw = j.pipelined();
        pw.set(JedisScenarioApp.STR, "pipeline-written");
        pw.sync();
        pw.close();
        result(CoreResults.PIPELINED_SET_READ_BACK, j.get(JedisScenarioApp.STR));
        result(CoreResults.PIPELINED_SET_READ_BACK_OTHER, other.get(JedisScenarioApp.STR));

        Transaction tw = j.multi();
        tw.set(JedisScenarioApp.STR, "multi-written");
        tw.exec();
        result(CoreResults.MULTI_SET_READ_BACK, j.get(JedisScenarioApp.STR));
        result(CoreResults.MULTI_SET_READ_BACK_OTHER, other.get(JedisScenarioApp.STR));

        j.set(JedisScenarioApp.STR, "direct-written");
        result(CoreResults.SET_READ_BACK, j.get(JedisScenarioApp.STR));
        result(CoreResults.SET_READ_BACK_OTHER, other.get(JedisScenarioApp.STR));
        result(
            CoreResults.SET_READ_BACK_BYTES,
            new String(
                other.get(JedisScenarioApp.STR.getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8));

        // less common writes: APPEND, a raw SETRANGE through sendCommand, and a Lua script (EVAL)
        Ops.call(
            j,
            "append",
            new Class<?>[] {String.class, String.class},
            JedisScenarioApp.STR,
            "-appended");
        result(CoreResults.APPEND_READ_BACK, other.get(JedisScenarioApp.STR));
        j.sendCommand(
            () -> "SETRANGE".getBytes(StandardCharsets.UTF_8), JedisScenarioApp.STR, "0", "D");
        result(CoreResults.SETRANGE_READ_BACK, other.get(JedisScenarioApp.STR));
        j.eval(
            "return redis.call('SET', KEYS[1], ARGV[1])", 1, JedisScenarioApp.STR, "eval-written");
        result(CoreResults.EVAL_READ_BACK, other.get(JedisScenarioApp.STR));

        Ops.hset(j, JedisScenarioApp.HASH, "f1", "f1-written");
        result(CoreResults.HSET_READ_BACK, other.hget(JedisScenarioApp.HASH, "f1"));
        result(CoreResults.HSET_READ_BACK_ALL, Ops.canonMap(other.hgetAll(JedisScenarioApp.HASH)));
        Ops.rpush(j, JedisScenarioApp.LIST, "pushed");
        result(
            CoreResults.RPUSH_READ_BACK, Ops.canonList(other.lrange(JedisScenarioApp.LIST, 0, -1)));
        Ops.sadd(j, JedisScenarioApp.SET, "added");
        result(CoreResults.SADD_READ_BACK, Ops.canonSet(other.smembers(JedisScenarioApp.SET)));
        Ops.zadd(j, JedisScenarioApp.ZSET, 99, "zadded");
        result(CoreResults.ZADD_READ_BACK, Ops.canonList(Ops.zrange(other, JedisScenarioApp.ZSET)));
        Ops.del(j, JedisScenarioApp.STR);
        result(CoreResults.DEL_READ_BACK, other.get(JedisScenarioApp.STR));
      }
      j.close();
      Child.reportJmx(RunResults.END_JMX);
    }
  }
}
