package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The harness itself, without the agent: the scenario app runs on every Jedis version and the
 * commandstats accounting matches what the app says it sent. If this fails, the other failures are
 * not the agent's.
 */
class ScenarioBaselineIT extends RedisTestBase {

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(
      strings = {
        Clients.JEDIS_3,
        Clients.JEDIS_4,
        Clients.JEDIS_5,
        Clients.JEDIS_6,
        Clients.JEDIS_7,
        Clients.JEDIS_8
      })
  void scenarioRunsWithoutAgent(String version) {
    BasicRun run =
        BasicRun.run(AgentJvm.jedisApp(version).withoutAgent(), redis, "baseline-" + version, 200);
    ChildRun c = run.child();
    CommandStats used = run.used();
    Check.all(
        c,
        "baseline",
        run.ranWithRedisValuesAnd(
            () -> assertTrue(c.hotkeyLines().isEmpty(), () -> "[hotkey] lines without agent"),
            () -> assertFalse(c.result(BasicResults.JMX.registered()), () -> "MBean without agent"),
            () ->
                assertEquals(
                    c.result(BasicResults.GETS),
                    used.calls("get"),
                    () -> "GET accounting " + used)));
  }
}
