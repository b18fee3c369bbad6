package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.CoolDownResults;
import io.hotkey.it.app.results.ExternalWriteResults;
import io.hotkey.it.app.results.HotReadResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * <p>Usage: {@code --scenario core|basic|smoke|databases|ryw|external --redis host:port --jedis
 * <version> [...]}. It never asserts: it reports what it saw as {@code RESULT} lines and the test
 * decides.
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
            case "core" ->
                JedisCoreScenario.run(
                    host, port, major, Integer.parseInt(a.getOrDefault("n", "2000")));
            case "basic" -> basic(host, port, Long.parseLong(a.getOrDefault("millis", "1500")));
            case "databases" -> JedisSmokeScenario.databases(host, port);
            case "smoke" ->
                JedisSmokeScenario.run(host, port, Integer.parseInt(a.getOrDefault("n", "1000")));
            case "ryw" ->
                JedisReadYourWritesScenario.run(
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
        // on a busy machine the time alone may end before the reads after promotion outnumber
        // the ones before it
        while (System.nanoTime() < end || loops < 2_500) {
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
