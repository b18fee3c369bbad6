package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * The core proof, one child run per (Jedis version, JDK), asserted from several angles: (a) hot
 * keys are detected (log line + JMX), (b) reads of hot keys are served locally and are correct,
 * invariant 2 (fresh objects of the same type), (e) pipelines and transactions always reach Redis,
 * and writes through every path invalidate.
 */
class HotKeyCoreIT extends RedisTestBase {
  static final String STR = "hk:str";
  static final String HASH = "hk:hash";
  static final String LIST = "hk:list";
  static final String SET = "hk:set";
  static final String ZSET = "hk:zset";
  static final int N = 2000;

  /** Local serving means: less than this share of the reads reached Redis. */
  static final double MAX_REDIS_SHARE = 0.05;

  static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

  static final class Run {
    ChildRun child;
    Snapshots snaps;
    Map<String, String> redisAfter;
  }

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    for (String v : Clients.MODERN) {
      a.add(Arguments.of(v, Jdk.JDK17));
    }
    a.add(Arguments.of(Clients.JEDIS_4, Jdk.JDK25));
    a.add(Arguments.of(Clients.JEDIS_8, Jdk.JDK25));
    return a.stream();
  }

  static void populate(Jedis j) {
    j.set(STR, "value-1");
    j.hset(HASH, Map.of("f1", "v1", "f2", "v2", "f3", "v3"));
    j.rpush(LIST, "a", "b", "c", "d");
    j.sadd(SET, "x", "y", "z");
    j.zadd(ZSET, 1, "m1");
    j.zadd(ZSET, 2, "m2");
    j.zadd(ZSET, 3, "m3");
  }

  static Run run(String version, Jdk jdk) {
    return RUNS.computeIfAbsent(
        version + "/" + jdk,
        k -> {
          redis.reset();
          try (Jedis j = redis.jedis()) {
            populate(j);
          }
          Run r = new Run();
          r.snaps = new Snapshots(redis::stats);
          r.child =
              AgentJvm.jedisApp(version)
                  .jdk(jdk)
                  .hotkeyTestDefaults()
                  .prop("hotkey.cache.ttl", "5s")
                  .name("core-" + version)
                  .args(
                      "--scenario", "core", "--redis", redis.address(), "--n", Integer.toString(N))
                  .run(r.snaps);
          if (r.snaps.has("reads") && r.snaps.has("reads-done")) {
            System.out.println(
                "[it] core "
                    + version
                    + " on "
                    + jdk
                    + ": commands that reached Redis during the"
                    + " hot-read phase: "
                    + r.snaps.delta("reads", "reads-done")
                    + " (child issued get="
                    + (r.child.resultLong("reads.get.n") + r.child.resultLong("reads.getBytes.n"))
                    + ", each other read="
                    + r.child.resultLong("reads.hget.n")
                    + ")");
          }
          try (Jedis j = redis.jedis()) {
            r.redisAfter =
                Map.of(
                    "str", String.valueOf(j.get(STR)),
                    "hash", new java.util.TreeMap<>(j.hgetAll(HASH)).toString(),
                    "list", j.lrange(LIST, 0, -1).toString(),
                    "set", new java.util.TreeSet<>(j.smembers(SET)).toString(),
                    "zset", j.zrange(ZSET, 0, -1).toString());
          }
          return r;
        });
  }

  static void assertRanToCompletion(ChildRun c) {
    Check.all(
        c,
        "child ran its scenario",
        () -> assertEquals(false, c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertEquals("true", c.result("done"), () -> "scenario did not finish"));
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void a_hotKeysAreDetectedLoggedAndShownInJmx(String version, Jdk jdk) {
    ChildRun c = run(version, jdk).child;
    assertRanToCompletion(c);
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertTrue(c.agentActiveLine(), () -> "no '[hotkey] active:' line"));
    for (String key : List.of(STR, HASH, LIST, SET, ZSET)) {
      checks.add(() -> assertTrue(c.promoted(key), () -> "no promotion line for " + key));
    }
    checks.add(
        () ->
            assertEquals(
                "true",
                c.result("afterWarmup.jmx.registered"),
                () -> "MBean io.hotkey:type=HotkeyAgent not registered in the child"));
    checks.add(
        () ->
            assertEquals(
                "true",
                c.result("core.warmup.hotViaJmx"),
                () ->
                    "JMX HotKeys never listed all five keys during warm-up: HotKeys="
                        + c.result("afterWarmup.jmx.HotKeys")));
    checks.add(
        () ->
            assertTrue(
                c.resultLong("afterWarmup.jmx.HotKeyCount") >= 5,
                () -> "HotKeyCount=" + c.result("afterWarmup.jmx.HotKeyCount")));
    checks.add(
        () ->
            assertTrue(
                c.resultLong("afterReads.jmx.Commands") > 0,
                () -> "Commands=" + c.result("afterReads.jmx.Commands")));
    checks.add(
        () ->
            assertTrue(
                c.resultLong("afterReads.jmx.CacheHits") > 0,
                () -> "CacheHits=" + c.result("afterReads.jmx.CacheHits")));
    Check.all(c, "detection", checks.stream());
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void b_hotReadsAreServedLocallyWithRedisValues(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    Map<String, String> expected =
        Map.of(
            "get",
            "value-1",
            "getBytes",
            "value-1",
            "hget",
            "v1",
            "hgetall",
            "{f1=v1, f2=v2, f3=v3}",
            "lrange",
            "[a, b, c, d]",
            "smembers",
            "[x, y, z]",
            "zrange",
            "[m1, m2, m3]");
    List<Executable> checks = new ArrayList<>();
    expected.forEach(
        (cmd, value) -> {
          checks.add(
              () -> assertEquals(value, c.result("first." + cmd + ".value"), () -> "first " + cmd));
          checks.add(
              () ->
                  assertEquals(
                      value,
                      c.result("reads." + cmd + ".value"),
                      () -> cmd + " of a hot key: value differs from what Redis holds"));
          checks.add(
              () ->
                  assertEquals(
                      0,
                      c.resultLong("reads." + cmd + ".mismatches"),
                      () ->
                          cmd
                              + ": answers that differed from Redis' (incl. after the app mutated a returned object)"));
        });
    // commandstats: the Redis command each read maps to
    Map<String, List<String>> byCommand =
        Map.of(
            "get",
            List.of("get", "getBytes"),
            "hget",
            List.of("hget"),
            "hgetall",
            List.of("hgetall"),
            "lrange",
            List.of("lrange"),
            "smembers",
            List.of("smembers"),
            "zrange",
            List.of("zrange"));
    byCommand.forEach(
        (cmd, reads) ->
            checks.add(
                () -> {
                  long n = reads.stream().mapToLong(x -> c.resultLong("reads." + x + ".n")).sum();
                  long reached = r.snaps.calls(cmd, "reads", "reads-done");
                  assertTrue(
                      n > 0 && reached < n * MAX_REDIS_SHARE,
                      () ->
                          cmd
                              + ": "
                              + reached
                              + " of "
                              + n
                              + " reads of a hot key reached Redis (want < "
                              + (long) (n * MAX_REDIS_SHARE)
                              + "); commandstats delta "
                              + r.snaps.delta("reads", "reads-done"));
                }));
    Check.all(c, "local serving", checks.stream());
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void b2_cachedAnswersHaveTheTypeRedisAnswersHave(String version, Jdk jdk) {
    ChildRun c = run(version, jdk).child;
    assertRanToCompletion(c);
    List<Executable> checks = new ArrayList<>();
    for (String cmd :
        List.of("get", "getBytes", "hget", "hgetall", "lrange", "smembers", "zrange")) {
      checks.add(
          () ->
              assertEquals(
                  c.result("first." + cmd + ".class"),
                  c.result("reads." + cmd + ".class"),
                  () -> cmd + ": a locally served answer has another type than Redis' answer"));
      checks.add(
          () ->
              assertEquals(
                  0,
                  c.resultLong("reads." + cmd + ".immutable"),
                  () -> cmd + ": locally served answers were immutable, Redis' are not"));
    }
    Check.all(c, "same type, fresh object", checks.stream());
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void b3_jedisPooledReadsOfAHotKeyAreServedLocally(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    long n = c.resultLong("pooled.n");
    long reached = r.snaps.calls("get", "pooled", "pooled-done");
    Check.all(
        c,
        "JedisPooled",
        () -> assertEquals(0, c.resultLong("pooled.mismatches"), () -> "mismatches"),
        () -> assertEquals("pooled-written", c.result("pooled.readBack"), () -> "write then read"),
        () ->
            assertEquals(
                "pooled-written",
                c.result("pooled.readBackViaJedis"),
                () ->
                    "a write through "
                        + c.result("pooled.client")
                        + " was not seen by a Jedis of the same JVM"),
        () -> assertEquals("value-1", c.result("pooled.restored"), () -> "write then read"),
        () ->
            assertTrue(
                n > 0 && reached < n * MAX_REDIS_SHARE + 2,
                () -> reached + " of " + n + " JedisPooled GETs of a hot key reached Redis"));
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void e_pipelinesAndTransactionsAlwaysReachRedis(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    Check.all(
        c,
        "pipelines and transactions",
        () ->
            assertEquals(
                c.resultLong("pipeline.n"),
                r.snaps.calls("get", "pipeline", "pipeline-done"),
                () ->
                    "pipelined GETs of a hot key that reached Redis (want all); delta "
                        + r.snaps.delta("pipeline", "pipeline-done")),
        () -> assertEquals(0, c.resultLong("pipeline.mismatches"), () -> "pipelined values"),
        () ->
            assertEquals(
                c.resultLong("multi.n"),
                r.snaps.calls("get", "multi", "multi-done"),
                () ->
                    "GETs inside MULTI/EXEC that reached Redis (want all); delta "
                        + r.snaps.delta("multi", "multi-done")),
        () -> assertEquals(1, r.snaps.calls("exec", "multi", "multi-done"), () -> "one EXEC"),
        () -> assertEquals(0, c.resultLong("multi.mismatches"), () -> "transaction values"));
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void nonDeterministicReadsOfAHotKeyAlwaysReachRedis(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    Check.all(
        c,
        "SRANDMEMBER",
        () ->
            assertEquals(
                0,
                c.resultLong("srandmember.notAMember"),
                () -> "SRANDMEMBER answered a non-member"),
        () ->
            assertEquals(
                c.resultLong("srandmember.n"),
                r.snaps.calls("srandmember", "srandmember", "srandmember-done"),
                () ->
                    "SRANDMEMBER of a hot key must always reach Redis; delta "
                        + r.snaps.delta("srandmember", "srandmember-done")));
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void writesThroughEveryPathInvalidate(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    Map<String, String> want = new java.util.LinkedHashMap<>();
    want.put("write.pipeline.readBack", "pipeline-written");
    want.put("write.pipeline.readBackOther", "pipeline-written");
    want.put("write.multi.readBack", "multi-written");
    want.put("write.multi.readBackOther", "multi-written");
    want.put("write.set.readBack", "direct-written");
    want.put("write.set.readBackOther", "direct-written");
    want.put("write.set.readBackBytes", "direct-written");
    want.put("write.append.readBack", "direct-written-appended");
    want.put("write.setrange.readBack", "Direct-written-appended");
    want.put("write.eval.readBack", "eval-written");
    want.put("write.hset.readBack", "f1-written");
    want.put("write.hset.readBackAll", r.redisAfter.get("hash"));
    want.put("write.rpush.readBack", r.redisAfter.get("list"));
    want.put("write.sadd.readBack", r.redisAfter.get("set"));
    want.put("write.zadd.readBack", r.redisAfter.get("zset"));
    want.put("write.del.readBack", "null");
    List<Executable> checks = new ArrayList<>();
    want.forEach(
        (k, v) ->
            checks.add(
                () ->
                    assertEquals(
                        v,
                        c.result(k),
                        () -> k + ": a read after the write returned did not see it")));
    checks.add(() -> assertEquals("{f1=f1-written, f2=v2, f3=v3}", r.redisAfter.get("hash")));
    checks.add(() -> assertEquals("[a, b, c, d, pushed]", r.redisAfter.get("list")));
    checks.add(() -> assertEquals("[added, x, y, z]", r.redisAfter.get("set")));
    checks.add(() -> assertEquals("[m1, m2, m3, zadded]", r.redisAfter.get("zset")));
    checks.add(() -> assertEquals("null", r.redisAfter.get("str")));
    Check.all(c, "writes invalidate", checks.stream());
  }
}
