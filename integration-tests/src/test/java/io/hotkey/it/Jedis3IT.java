package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Jedis 3.10 with the agent: the application runs correctly (reads, writes, pipelines,
 * transactions), commands are counted and the hot key is promoted. Local serving is not expected on
 * 3.x.
 */
class Jedis3IT extends RedisTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Jdk.class)
  void jedis3RunsUnchangedAndIsCounted(Jdk jdk) {
    CommandStats before = redis.stats();
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_3)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .name("jedis3")
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "1500")
            .run();
    CommandStats used = redis.stats().minus(before);
    Check.all(
        c,
        "jedis 3",
        () -> assertFalse(c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
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
                () -> "more GETs reached Redis than the app sent; commandstats " + used));
    // Local serving is not expected on 3.x; say what happened without requiring either.
    System.out.println(
        "[it] jedis 3.10 on "
            + jdk
            + ": "
            + used.calls("get")
            + " of "
            + c.result(BasicResults.GETS)
            + " GETs reached Redis");
  }
}
