package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.CoreResults;
import io.hotkey.it.app.results.CoreResults.CoreRead;
import io.hotkey.it.app.results.ResultName;
import io.hotkey.it.app.results.RunResults;
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

  Run run(String version, Jdk jdk) {
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
                    + (r.child.result(CoreResults.readCount(CoreRead.GET))
                        + r.child.result(CoreResults.readCount(CoreRead.GET_BYTES)))
                    + ", each other read="
                    + r.child.result(CoreResults.readCount(CoreRead.HGET))
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
        () -> assertTrue(c.result(RunResults.DONE), () -> "scenario did not finish"));
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
            assertTrue(
                c.result(CoreResults.AFTER_WARMUP_JMX.registered()),
                () -> "MBean io.hotkey:type=HotkeyAgent not registered in the child"));
    checks.add(
        () ->
            assertTrue(
                c.result(CoreResults.WARMUP.hotViaJmx()),
                () ->
                    "JMX HotKeys never listed all five keys during warm-up: HotKeys="
                        + c.result(CoreResults.AFTER_WARMUP_JMX.hotKeys())));
    checks.add(
        () ->
            assertTrue(
                c.result(CoreResults.AFTER_WARMUP_JMX.hotKeyCount()) >= 5,
                () -> "HotKeyCount=" + c.result(CoreResults.AFTER_WARMUP_JMX.hotKeyCount())));
    checks.add(
        () ->
            assertTrue(
                c.result(CoreResults.AFTER_READS_JMX.commands()) > 0,
                () -> "Commands=" + c.result(CoreResults.AFTER_READS_JMX.commands())));
    checks.add(
        () ->
            assertTrue(
                c.result(CoreResults.AFTER_READS_JMX.cacheHits()) > 0,
                () -> "CacheHits=" + c.result(CoreResults.AFTER_READS_JMX.cacheHits())));
    Check.all(c, "detection", checks.stream());
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void b_hotReadsAreServedLocallyWithRedisValues(String version, Jdk jdk) {
    Run r = run(version, jdk);
    ChildRun c = r.child;
    assertRanToCompletion(c);
    Map<CoreRead, String> expected =
        Map.of(
            CoreRead.GET,
            "value-1",
            CoreRead.GET_BYTES,
            "value-1",
            CoreRead.HGET,
            "v1",
            CoreRead.HGETALL,
            "{f1=v1, f2=v2, f3=v3}",
            CoreRead.LRANGE,
            "[a, b, c, d]",
            CoreRead.SMEMBERS,
            "[x, y, z]",
            CoreRead.ZRANGE,
            "[m1, m2, m3]");
    List<Executable> checks = new ArrayList<>();
    expected.forEach(
        (cmd, value) -> {
          checks.add(
              () ->
                  assertEquals(value, c.result(CoreResults.firstValue(cmd)), () -> "first " + cmd));
          checks.add(
              () ->
                  assertEquals(
                      value,
                      c.result(CoreResults.lastValue(cmd)),
                      () -> cmd + " of a hot key: value differs from what Redis holds"));
          checks.add(
              () ->
                  assertEquals(
                      0,
                      c.result(CoreResults.readMismatches(cmd)),
                      () ->
                          cmd
                              + ": answers that differed from Redis' (incl. after the app mutated a returned object)"));
        });
    // commandstats: the Redis command each read maps to
    Map<String, List<CoreRead>> byCommand =
        Map.of(
            "get",
            List.of(CoreRead.GET, CoreRead.GET_BYTES),
            "hget",
            List.of(CoreRead.HGET),
            "hgetall",
            List.of(CoreRead.HGETALL),
            "lrange",
            List.of(CoreRead.LRANGE),
            "smembers",
            List.of(CoreRead.SMEMBERS),
            "zrange",
            List.of(CoreRead.ZRANGE));
    byCommand.forEach(
        (cmd, reads) ->
            checks.add(
                () -> {
                  long n = reads.stream().mapToLong(x -> c.result(CoreResults.readCount(x))).sum();
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
    for (CoreRead cmd : CoreRead.values()) {
      checks.add(
          () ->
              assertEquals(
                  c.result(CoreResults.firstClass(cmd)),
                  c.result(CoreResults.lastClass(cmd)),
                  () -> cmd + ": a locally served answer has another type than Redis' answer"));
      checks.add(
          () ->
              assertEquals(
                  0,
                  c.result(CoreResults.immutableAnswers(cmd)),
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
    long n = c.result(CoreResults.POOLED_READS);
    long reached = r.snaps.calls("get", "pooled", "pooled-done");
    Check.all(
        c,
        "JedisPooled",
        () -> assertEquals(0, c.result(CoreResults.POOLED_MISMATCHES), () -> "mismatches"),
        () ->
            assertEquals(
                "pooled-written", c.result(CoreResults.POOLED_READ_BACK), () -> "write then read"),
        () ->
            assertEquals(
                "pooled-written",
                c.result(CoreResults.POOLED_READ_BACK_VIA_JEDIS),
                () ->
                    "a write through "
                        + c.result(CoreResults.POOLED_CLIENT)
                        + " was not seen by a Jedis of the same JVM"),
        () ->
            assertEquals("value-1", c.result(CoreResults.POOLED_RESTORED), () -> "write then read"),
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
                c.result(CoreResults.PIPELINE_GETS),
                r.snaps.calls("get", "pipeline", "pipeline-done"),
                () ->
                    "pipelined GETs of a hot key that reached Redis (want all); delta "
                        + r.snaps.delta("pipeline", "pipeline-done")),
        () -> assertEquals(0, c.result(CoreResults.PIPELINE_MISMATCHES), () -> "pipelined values"),
        () ->
            assertEquals(
                c.result(CoreResults.MULTI_GETS),
                r.snaps.calls("get", "multi", "multi-done"),
                () ->
                    "GETs inside MULTI/EXEC that reached Redis (want all); delta "
                        + r.snaps.delta("multi", "multi-done")),
        () -> assertEquals(1, r.snaps.calls("exec", "multi", "multi-done"), () -> "one EXEC"),
        () -> assertEquals(0, c.result(CoreResults.MULTI_MISMATCHES), () -> "transaction values"));
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
                c.result(CoreResults.SRANDMEMBER_NOT_A_MEMBER),
                () -> "SRANDMEMBER answered a non-member"),
        () ->
            assertEquals(
                c.result(CoreResults.SRANDMEMBER_CALLS),
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
    Map<ResultName<String>, String> want = new java.util.LinkedHashMap<>();
    want.put(CoreResults.PIPELINED_SET_READ_BACK, "pipeline-written");
    want.put(CoreResults.PIPELINED_SET_READ_BACK_OTHER, "pipeline-written");
    want.put(CoreResults.MULTI_SET_READ_BACK, "multi-written");
    want.put(CoreResults.MULTI_SET_READ_BACK_OTHER, "multi-written");
    want.put(CoreResults.SET_READ_BACK, "direct-written");
    want.put(CoreResults.SET_READ_BACK_OTHER, "direct-written");
    want.put(CoreResults.SET_READ_BACK_BYTES, "direct-written");
    want.put(CoreResults.APPEND_READ_BACK, "direct-written-appended");
    want.put(CoreResults.SETRANGE_READ_BACK, "Direct-written-appended");
    want.put(CoreResults.EVAL_READ_BACK, "eval-written");
    want.put(CoreResults.HSET_READ_BACK, "f1-written");
    want.put(CoreResults.HSET_READ_BACK_ALL, r.redisAfter.get("hash"));
    want.put(CoreResults.RPUSH_READ_BACK, r.redisAfter.get("list"));
    want.put(CoreResults.SADD_READ_BACK, r.redisAfter.get("set"));
    want.put(CoreResults.ZADD_READ_BACK, r.redisAfter.get("zset"));
    // nil: nothing answered in place of the deleted key
    want.put(CoreResults.DEL_READ_BACK, null);
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
