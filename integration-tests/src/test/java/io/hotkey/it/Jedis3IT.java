package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.JedisSmokeResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * The Jedis 3 module beyond the version matrix ({@link VersionMatrixIT}): a class left unwoven, the
 * agent attached at run time, and Jedis 3.10's {@code basic} scenario on every JDK.
 */
class Jedis3IT extends RedisTestBase {
  static final String OLDEST = Clients.JEDIS_3_MATRIX.get(0);

  /**
   * One class of the module left unwoven ({@code hotkey.debug.fail-weaving}, as another agent could
   * make it fail): the module says so and stops serving, binary reads through the woven {@code
   * BinaryJedis} included, while every read still gets Redis' answer and writes still invalidate.
   */
  @Test
  void aJedisClassLeftUnwovenCountsButNeverServes() {
    String unwoven = "redis.clients.jedis.Jedis";
    Snapshots snaps = new Snapshots(redis::stats).on("foreign", sync -> writeForeign());
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_3)
            .hotkeyTestDefaults()
            .prop("hotkey.debug.fail-weaving", unwoven)
            .name("jedis3-unwoven")
            .args("--scenario", "smoke", "--redis", redis.address(), "--n", "200")
            .run(snaps);
    long reads = c.result(JedisSmokeResults.READS);
    long reached = snaps.calls(List.of("get", "hgetall", "lrange"), "smoke", "smoke-done");
    Check.all(
        c,
        "jedis 3 with " + unwoven + " unwoven",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertTrue(
                c.stderrContains("jedis-3 stops serving in class loader ")
                    && c.stderrContains(unwoven + " is not instrumented: "),
                () -> "no log line naming the module and the class"),
        () ->
            assertEquals(
                0,
                c.result(JedisSmokeResults.MISMATCHES),
                () -> "wrong values: " + c.result(JedisSmokeResults.EXAMPLES)),
        () -> assertTrue(c.promoted("j3:str"), () -> "j3:str not counted up to hot"),
        () -> assertEquals(0, c.result(JedisSmokeResults.JMX.cacheHits()), () -> "cache hits"),
        () -> assertEquals(reads, reached, () -> reached + " of " + reads + " reads reached Redis"),
        () ->
            assertTrue(
                c.result(JedisSmokeResults.FOREIGN_WRITE_MILLIS) >= 0,
                () -> "another process's write was not read back"));
  }

  /**
   * The agent attached to a running Jedis 3.0 application, whose Jedis classes are loaded and in
   * use: they are retransformed, the hot key is then served, and no read is wrong.
   */
  @Test
  void attachingToARunningApplicationServesItsHotKey() {
    Map<String, Long> getCalls = new ConcurrentHashMap<>();
    List<String> attachOutput = new ArrayList<>();
    ChildRun c =
        AgentJvm.jedisApp(OLDEST)
            .withoutAgent()
            .prop("hotkey.detect.threshold", "200")
            .name("jedis3-attach")
            .args("--scenario", "attach", "--redis", redis.address(), "--millis", "2500")
            .run(
                name -> {
                  if (name.startsWith("attach ")) {
                    attachOutput.addAll(
                        AttachIT.attach(Jdk.JDK17, name.substring("attach ".length())));
                  }
                  getCalls.put(name.split(" ")[0], redis.calls("get"));
                  return "";
                });
    Check.all(
        c,
        "attach to jedis " + OLDEST,
        () -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput),
        () ->
            assertTrue(
                attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                () -> "attach command output " + attachOutput),
        () ->
            assertTrue(
                c.stderrContains("(already loaded, retransformed)"),
                () -> "Jedis' loaded classes were not retransformed"),
        () -> assertTrue(c.promoted("attach:key"), () -> "never promoted"),
        () -> assertEquals(0, c.result(AttachResults.WRONG), () -> "wrong values read"),
        () -> {
          long reached = getCalls.get("served") - getCalls.get("measured");
          assertTrue(reached < 50, () -> reached + " of 1000 GETs of the hot key reached Redis");
        });
  }

  private String writeForeign() {
    try (Jedis other = redis.jedis()) {
      other.set("j3:str", "foreign");
    }
    return "foreign";
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Jdk.class)
  void jedis3RunsUnchangedAndIsCounted(Jdk jdk) {
    BasicRun run =
        BasicRun.run(
            AgentJvm.jedisApp(Clients.JEDIS_3).jdk(jdk).hotkeyTestDefaults(),
            redis,
            "jedis3",
            1500);
    ChildRun c = run.child();
    CommandStats used = run.used();
    Check.all(
        c,
        "jedis 3",
        run.ranWithRedisValuesAnd(
            () -> assertTrue(c.agentActiveLine(), () -> "no active line"),
            () -> assertTrue(c.promoted("basic:str"), () -> "basic:str not promoted"),
            () ->
                assertTrue(
                    c.result(BasicResults.JMX.commands()) >= c.result(BasicResults.GETS),
                    () ->
                        "JMX Commands="
                            + c.result(BasicResults.JMX.commands())
                            + " < GETs issued "
                            + c.result(BasicResults.GETS)),
            () -> assertTrue(used.calls("set") >= 4, () -> "writes reach Redis: " + used),
            () ->
                assertTrue(
                    used.calls("get") <= c.result(BasicResults.GETS),
                    () -> "more GETs reached Redis than the app sent; commandstats " + used)));
  }
}
