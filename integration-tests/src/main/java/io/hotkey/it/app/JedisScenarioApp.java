package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.CoolDownResults;
import io.hotkey.it.app.results.CoreResults;
import io.hotkey.it.app.results.CoreResults.CoreRead;
import io.hotkey.it.app.results.ExternalWriteResults;
import io.hotkey.it.app.results.HotReadResults;
import io.hotkey.it.app.results.ReadYourWritesResults;
import io.hotkey.it.app.results.RunResults;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * The application the integration tests run in a child JVM, with or without the agent. It is
 * compiled against Jedis 4.4.8 and only calls API whose binary signature is the same in Jedis 3.10
 * … 8.x (anything else goes through {@link Ops}); the JedisPooled path lives in {@link PooledReads}
 * and runs only on Jedis 4+.
 *
 * <p>Usage: {@code --scenario core|basic|ryw|external --redis host:port --jedis <version> [...]}.
 * It never asserts: it reports what it saw as {@code RESULT} lines and the test decides.
 */
public final class JedisScenarioApp {

  /** Keys the tests pre-populate for the core scenario (see CoreData in the tests). */
  public static final String STR = "hk:str";

  public static final String HASH = "hk:hash";
  public static final String LIST = "hk:list";
  public static final String SET = "hk:set";
  public static final String ZSET = "hk:zset";

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Child.parseArgs(args);
    String scenario = a.get("scenario");
    String[] hp = a.get("redis").split(":");
    String host = hp[0];
    int port = Integer.parseInt(hp[1]);
    int major = Child.major(a.getOrDefault("jedis", "4.4.8"));
    result(RunResults.SCENARIO, scenario);
    result(RunResults.JAVA_VERSION, System.getProperty("java.version"));
    Child.runAndExit(
        () -> {
          switch (scenario) {
            case "core" -> core(host, port, major, Integer.parseInt(a.getOrDefault("n", "2000")));
            case "basic" -> basic(host, port, Long.parseLong(a.getOrDefault("millis", "1500")));
            case "ryw" ->
                readYourWrites(
                    host,
                    port,
                    a.getOrDefault("key", "ryw:counter"),
                    Long.parseLong(a.getOrDefault("millis", "3000")),
                    Integer.parseInt(a.getOrDefault("readers", "3")));
            case "external" ->
                external(
                    host,
                    port,
                    a.getOrDefault("key", "ext:key"),
                    Integer.parseInt(a.getOrDefault("rounds", "3")));
            case "hotread" ->
                hotRead(
                    host,
                    port,
                    a.get("keys").split(","),
                    Integer.parseInt(a.getOrDefault("n", "1000")));
            case "attach" ->
                attach(
                    host,
                    port,
                    a.getOrDefault("key", "attach:key"),
                    Long.parseLong(a.getOrDefault("millis", "2500")));
            case "cooldown" ->
                coolDown(
                    host,
                    port,
                    a.getOrDefault("key", "cd:key"),
                    Long.parseLong(a.getOrDefault("max-wait-ms", "8000")));
            default -> throw new IllegalArgumentException("unknown scenario " + scenario);
          }
        },
        false);
  }

  // ------------------------------------------------------------------------------------------
  // core: detection (a), local serving + correctness (b), pipelines/transactions (e), invalidation

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
    r.add(new Read(CoreRead.GET, j -> j.get(STR), String::valueOf));
    r.add(
        new Read(
            CoreRead.GET_BYTES,
            j -> j.get(STR.getBytes(StandardCharsets.UTF_8)),
            o -> o == null ? "null" : new String((byte[]) o, StandardCharsets.UTF_8)));
    r.add(new Read(CoreRead.HGET, j -> j.hget(HASH, "f1"), String::valueOf));
    r.add(new Read(CoreRead.HGETALL, j -> j.hgetAll(HASH), o -> Ops.canonMap((Map<?, ?>) o)));
    r.add(
        new Read(
            CoreRead.LRANGE, j -> j.lrange(LIST, 0, -1), o -> Ops.canonList((Collection<?>) o)));
    r.add(new Read(CoreRead.SMEMBERS, j -> j.smembers(SET), o -> Ops.canonSet((Collection<?>) o)));
    r.add(
        new Read(CoreRead.ZRANGE, j -> Ops.zrange(j, ZSET), o -> Ops.canonList((Collection<?>) o)));
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

  static void core(String host, int port, int major, int n) {
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
          Arrays.asList(STR, HASH, LIST, SET, ZSET),
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
        PooledReads.run(host, port, n, STR, expected[0], () -> j.get(STR));
        sync("pooled-done");
      }

      // invariant 2: non-deterministic reads of a hot key are never answered locally
      int sr = 200;
      sync("srandmember");
      long srBad = 0;
      for (int k = 0; k < sr; k++) {
        String m = j.srandmember(SET);
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
        rs.add(pl.get(STR));
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
        tx.get(STR);
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
        pw.set(STR, "pipeline-written");
        pw.sync();
        pw.close();
        result(CoreResults.PIPELINED_SET_READ_BACK, j.get(STR));
        result(CoreResults.PIPELINED_SET_READ_BACK_OTHER, other.get(STR));

        Transaction tw = j.multi();
        tw.set(STR, "multi-written");
        tw.exec();
        result(CoreResults.MULTI_SET_READ_BACK, j.get(STR));
        result(CoreResults.MULTI_SET_READ_BACK_OTHER, other.get(STR));

        j.set(STR, "direct-written");
        result(CoreResults.SET_READ_BACK, j.get(STR));
        result(CoreResults.SET_READ_BACK_OTHER, other.get(STR));
        result(
            CoreResults.SET_READ_BACK_BYTES,
            new String(other.get(STR.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));

        // less common writes: APPEND, a raw SETRANGE through sendCommand, and a Lua script (EVAL)
        Ops.call(j, "append", new Class<?>[] {String.class, String.class}, STR, "-appended");
        result(CoreResults.APPEND_READ_BACK, other.get(STR));
        j.sendCommand(() -> "SETRANGE".getBytes(StandardCharsets.UTF_8), STR, "0", "D");
        result(CoreResults.SETRANGE_READ_BACK, other.get(STR));
        j.eval("return redis.call('SET', KEYS[1], ARGV[1])", 1, STR, "eval-written");
        result(CoreResults.EVAL_READ_BACK, other.get(STR));

        Ops.hset(j, HASH, "f1", "f1-written");
        result(CoreResults.HSET_READ_BACK, other.hget(HASH, "f1"));
        result(CoreResults.HSET_READ_BACK_ALL, Ops.canonMap(other.hgetAll(HASH)));
        Ops.rpush(j, LIST, "pushed");
        result(CoreResults.RPUSH_READ_BACK, Ops.canonList(other.lrange(LIST, 0, -1)));
        Ops.sadd(j, SET, "added");
        result(CoreResults.SADD_READ_BACK, Ops.canonSet(other.smembers(SET)));
        Ops.zadd(j, ZSET, 99, "zadded");
        result(CoreResults.ZADD_READ_BACK, Ops.canonList(Ops.zrange(other, ZSET)));
        Ops.del(j, STR);
        result(CoreResults.DEL_READ_BACK, other.get(STR));
      }
      j.close();
      Child.reportJmx(RunResults.END_JMX);
    }
  }

  // ------------------------------------------------------------------------------------------
  // basic: a bit of everything in a loop, counted; used for bad config, agent failures, Jedis 3,
  // JDK smoke

  /**
   * Runs without the agent until the test attaches it from outside ({@code java -jar
   * hotkey-agent.jar attach}), with Jedis' classes already loaded, then keeps reading one key and
   * reports what it saw.
   */
  static void attach(String host, int port, String key, long millis) {
    try (JedisPool pool = new JedisPool(host, port);
        Jedis j = pool.getResource()) {
      j.set(key, "attached");
      for (int i = 0; i < 100; i++) {
        j.get(key);
      }
      result(AttachResults.AGENT_BEFORE, Child.mbeanRegistered());
      sync("attach " + ProcessHandle.current().pid());
      long reads = 0;
      long wrong = 0;
      long end = System.nanoTime() + millis * 1_000_000;
      while (System.nanoTime() < end) {
        if (!"attached".equals(j.get(key))) {
          wrong++;
        }
        reads++;
      }
      sync("measured");
      for (int i = 0; i < 1_000; i++) {
        if (!"attached".equals(j.get(key))) {
          wrong++;
        }
        reads++;
      }
      sync("served");
      result(AttachResults.READS, reads);
      result(AttachResults.WRONG, wrong);
      Child.reportJmx(AttachResults.JMX);
    }
  }

  static void basic(String host, int port, long millis) {
    String k = "basic:str";
    String h = "basic:hash";
    String l = "basic:list";
    String s = "basic:set";
    String z = "basic:zset";
    long gets = 0;
    long errors = 0;
    List<String> errorSamples = new ArrayList<>();
    try (JedisPool pool = new JedisPool(host, port)) {
      try (Jedis j = pool.getResource()) {
        // writes through the client
        j.set(k, "b-0");
        Ops.del(j, h);
        Ops.del(j, l);
        Ops.del(j, s);
        Ops.del(j, z);
        Ops.del(j, "basic:counter");
        Ops.hset(j, h, "f", "hv");
        Ops.rpush(j, l, "l1", "l2");
        Ops.sadd(j, s, "s1", "s2");
        Ops.zadd(j, z, 1, "z1");
        Ops.zadd(j, z, 2, "z2");
        long end = System.nanoTime() + millis * 1_000_000;
        long loops = 0;
        while (System.nanoTime() < end || loops < 200) {
          loops++;
          String v = j.get(k);
          gets++;
          if (!"b-0".equals(v)) {
            errors++;
            sample(errorSamples, "get=" + v);
          }
          if (loops % 4 == 0) {
            errors += check(errorSamples, "hget", j.hget(h, "f"), "hv");
            errors += check(errorSamples, "hgetall", Ops.canonMap(j.hgetAll(h)), "{f=hv}");
            errors += check(errorSamples, "lrange", Ops.canonList(j.lrange(l, 0, -1)), "[l1, l2]");
            errors += check(errorSamples, "smembers", Ops.canonSet(j.smembers(s)), "[s1, s2]");
            errors += check(errorSamples, "zrange", Ops.canonList(Ops.zrange(j, z)), "[z1, z2]");
          }
        }
        result(BasicResults.LOOPS, loops);
        // pipeline and transaction, reads and a write each
        Pipeline p = j.pipelined();
        List<Response<String>> rs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          rs.add(p.get(k));
        }
        p.set(k, "b-pipe");
        p.sync();
        p.close();
        gets += 10;
        for (Response<String> r : rs) {
          errors += check(errorSamples, "pipeline get", r.get(), "b-0");
        }
        gets++;
        errors += check(errorSamples, "after pipeline set", j.get(k), "b-pipe");
        Transaction t = j.multi();
        t.get(k);
        t.set(k, "b-multi");
        List<Object> ex = t.exec();
        gets++;
        errors +=
            check(
                errorSamples, "multi get", ex == null ? null : String.valueOf(ex.get(0)), "b-pipe");
        gets++;
        errors += check(errorSamples, "after multi set", j.get(k), "b-multi");
        // a plain write, then many reads of the new value
        j.set(k, "b-1");
        for (int i = 0; i < 300; i++) {
          gets++;
          errors += check(errorSamples, "after set", j.get(k), "b-1");
        }
        Ops.hset(j, h, "f", "hv2");
        errors += check(errorSamples, "after hset", j.hget(h, "f"), "hv2");
        Ops.incr(j, "basic:counter");
        Ops.incr(j, "basic:counter");
        gets++;
        errors += check(errorSamples, "incr", j.get("basic:counter"), "2");
      }
    }
    result(BasicResults.GETS, gets);
    result(BasicResults.ERRORS, errors);
    result(BasicResults.ERROR_SAMPLES, errorSamples);
    Child.reportJmx(BasicResults.JMX);
  }

  private static void sample(List<String> samples, String s) {
    if (samples.size() < 5) {
      samples.add(s);
    }
  }

  private static int check(List<String> samples, String what, String actual, String expected) {
    if (expected.equals(actual)) {
      return 0;
    }
    sample(samples, what + ": expected " + expected + " got " + actual);
    return 1;
  }

  // ------------------------------------------------------------------------------------------
  // ryw (c): once a write has returned, no thread reads an older value

  static void readYourWrites(String host, int port, String key, long millis, int readers)
      throws Exception {
    redis.clients.jedis.JedisPoolConfig cfg = new redis.clients.jedis.JedisPoolConfig();
    cfg.setMaxTotal(readers + 4);
    try (JedisPool pool = new JedisPool(cfg, host, port)) {
      try (Jedis j = pool.getResource()) {
        j.set(key, "0");
        Child.warmUp(ReadYourWritesResults.WARMUP, List.of(key), () -> j.get(key), 8000, 3000);
      }
      AtomicLong lastReturned = new AtomicLong(0);
      AtomicLong violations = new AtomicLong();
      // by the path of the write that was not seen: 0 SET, 1 pipelined SET, 2 MULTI/EXEC SET, 3
      // INCR
      java.util.concurrent.atomic.AtomicLongArray byPath =
          new java.util.concurrent.atomic.AtomicLongArray(4);
      AtomicLong reads = new AtomicLong();
      AtomicLong writes = new AtomicLong();
      List<String> examples = java.util.Collections.synchronizedList(new ArrayList<>());
      sync("ryw");
      long deadline = System.nanoTime() + millis * 1_000_000;
      Thread writer =
          new Thread(
              () -> {
                try (Jedis w = pool.getResource()) {
                  long i = 0;
                  while (System.nanoTime() < deadline) {
                    // bursts of writes (races with fills), then quiet spells (the cache serves)
                    for (int b = 0; b < 20; b++) {
                      i++;
                      // every write path leaves the value i: SET, pipelined SET, MULTI/EXEC SET,
                      // INCR
                      switch ((int) (i % 4)) {
                        case 0 -> w.set(key, Long.toString(i));
                        case 1 -> {
                          Pipeline p = w.pipelined();
                          p.set(key, Long.toString(i));
                          p.sync();
                          p.close();
                        }
                        case 2 -> {
                          Transaction t = w.multi();
                          t.set(key, Long.toString(i));
                          t.exec();
                        }
                        default -> Ops.incr(w, key);
                      }
                      lastReturned.set(i);
                      writes.incrementAndGet();
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
                  }
                }
              },
              "writer");
      List<Thread> rt = new ArrayList<>();
      for (int r = 0; r < readers; r++) {
        final boolean borrowEachTime = r == 0;
        Thread t =
            new Thread(
                () -> {
                  Jedis held = borrowEachTime ? null : pool.getResource();
                  try {
                    while (System.nanoTime() < deadline) {
                      long floor = lastReturned.get();
                      String v;
                      if (held != null) {
                        v = held.get(key);
                      } else {
                        try (Jedis b = pool.getResource()) {
                          v = b.get(key);
                        }
                      }
                      reads.incrementAndGet();
                      long read;
                      try {
                        read = Long.parseLong(v);
                      } catch (RuntimeException e) {
                        read = Long.MIN_VALUE;
                      }
                      if (read < floor) {
                        violations.incrementAndGet();
                        byPath.incrementAndGet((int) (floor % 4));
                        if (examples.size() < 5) {
                          examples.add("lastReturnedWrite=" + floor + " read=" + v);
                        }
                      }
                    }
                  } finally {
                    if (held != null) {
                      held.close();
                    }
                  }
                },
                "reader-" + r);
        rt.add(t);
      }
      writer.start();
      rt.forEach(Thread::start);
      writer.join();
      for (Thread t : rt) {
        t.join();
      }
      sync("ryw-done");
      result(ReadYourWritesResults.READS, reads.get());
      result(ReadYourWritesResults.WRITES, writes.get());
      result(ReadYourWritesResults.VIOLATIONS, violations.get());
      result(ReadYourWritesResults.EXAMPLES, examples);
      result(
          ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH,
          "set="
              + byPath.get(0)
              + " pipeline="
              + byPath.get(1)
              + " multi="
              + byPath.get(2)
              + " incr="
              + byPath.get(3));
      try (Jedis j = pool.getResource()) {
        result(ReadYourWritesResults.FINAL, j.get(key));
      }
      result(ReadYourWritesResults.LAST_RETURNED, lastReturned.get());
      Child.reportJmx(ReadYourWritesResults.JMX);
    }
  }

  // ------------------------------------------------------------------------------------------
  // external (d): another client's write is seen within the cache TTL

  static void external(String host, int port, String key, int rounds) {
    try (JedisPool pool = new JedisPool(host, port)) {
      try (Jedis j = pool.getResource()) {
        String initial = j.get(key);
        result(ExternalWriteResults.INITIAL, initial);
        Child.warmUp(ExternalWriteResults.WARMUP, List.of(key), () -> j.get(key), 8000, 3000);
        String current = initial;
        for (int r = 1; r <= rounds; r++) {
          // hold: the key is served locally (the test checks commandstats)
          sync("hold-" + r);
          long holdEnd = System.nanoTime() + 200_000_000L;
          long holdReads = 0;
          long holdWrong = 0;
          while (System.nanoTime() < holdEnd) {
            if (!String.valueOf(current).equals(j.get(key))) {
              holdWrong++;
            }
            holdReads++;
          }
          result(ExternalWriteResults.holdReads(r), holdReads);
          result(ExternalWriteResults.holdWrong(r), holdWrong);
          sync("hold-done-" + r);
          // the test writes through its own connection, then tells us the new value
          String expected = sync("written-" + r);
          long t0 = System.nanoTime();
          long seenAt = -1;
          long readsUntilSeen = 0;
          while (System.nanoTime() - t0 < 5_000_000_000L) {
            String v = j.get(key);
            readsUntilSeen++;
            if (expected.equals(v)) {
              seenAt = (System.nanoTime() - t0) / 1_000_000;
              break;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
          }
          result(ExternalWriteResults.seenAfterMs(r), seenAt);
          result(ExternalWriteResults.readsUntilSeen(r), readsUntilSeen);
          // and from then on never the old value again
          long regressions = 0;
          long after = System.nanoTime() + 600_000_000L;
          while (System.nanoTime() < after) {
            if (!expected.equals(j.get(key))) {
              regressions++;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
          }
          result(ExternalWriteResults.regressions(r), regressions);
          current = expected;
        }
      }
      Child.reportJmx(ExternalWriteResults.JMX);
    }
  }

  // ------------------------------------------------------------------------------------------
  // cooldown: a hot key whose traffic drops to a trickle is demoted; afterwards its reads go to
  // Redis

  static void coolDown(String host, int port, String key, long maxWaitMs) {
    try (JedisPool pool = new JedisPool(host, port);
        Jedis j = pool.getResource()) {
      String expected = j.get(key);
      boolean hot =
          Child.warmUp(CoolDownResults.WARMUP, List.of(key), () -> j.get(key), 8000, 3000);
      Child.reportJmx(CoolDownResults.HOT_JMX);
      long t0 = System.nanoTime();
      long demotedAfter = -1;
      long wrong = 0;
      while ((System.nanoTime() - t0) / 1_000_000 < maxWaitMs) {
        if (!expected.equals(j.get(key))) {
          wrong++;
        }
        if (hot && !Child.allHot(List.of(key))) {
          demotedAfter = (System.nanoTime() - t0) / 1_000_000;
          break;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(
            50_000_000L); // ~20 reads/s, far below threshold
      }
      result(CoolDownResults.DEMOTED_AFTER_MS, demotedAfter);
      Child.reportJmx(CoolDownResults.COLD_JMX);
      sync("cold-reads");
      for (int i = 0; i < 10; i++) {
        if (!expected.equals(j.get(key))) {
          wrong++;
        }
      }
      result(CoolDownResults.COLD_READS, 10L);
      sync("cold-reads-done");
      result(CoolDownResults.WRONG, wrong);
    }
  }

  // ------------------------------------------------------------------------------------------
  // hotread: make some keys hot, then GET each n times between two SYNC points

  static void hotRead(String host, int port, String[] keys, int n) {
    try (JedisPool pool = new JedisPool(host, port);
        Jedis j = pool.getResource()) {
      String[] expected = new String[keys.length];
      for (int i = 0; i < keys.length; i++) {
        expected[i] = j.get(keys[i]);
      }
      Child.warmUp(
          HotReadResults.WARMUP,
          Arrays.asList(keys),
          () -> {
            for (String k : keys) {
              j.get(k);
            }
          },
          8000,
          3000);
      for (int i = 0; i < keys.length; i++) {
        sync("read-" + keys[i]);
        long mismatches = 0;
        for (int r = 0; r < n; r++) {
          if (!String.valueOf(expected[i]).equals(String.valueOf(j.get(keys[i])))) {
            mismatches++;
          }
        }
        result(HotReadResults.reads(keys[i]), (long) n);
        result(HotReadResults.mismatches(keys[i]), mismatches);
        sync("read-done-" + keys[i]);
      }
      Child.reportJmx(HotReadResults.JMX);
    }
  }
}
