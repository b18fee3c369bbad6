package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.DatabasesResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Jedis connection that disconnects forgets the database it had selected: every Jedis line
 * reconnects in database 0. A hot key served in database 2 must then be read as database 0's value
 * on that connection, as without the agent, until it selects 2 again.
 */
class JedisReconnectIT extends RedisTestBase {

  @ParameterizedTest(name = "jedis {0}")
  @ValueSource(strings = {"3.0.0", Clients.JEDIS_3, Clients.JEDIS_4, Clients.JEDIS_8})
  void aReconnectedConnectionIsServedItsNewDatabase(String version) {
    ChildRun c =
        AgentJvm.jedisApp(version)
            .hotkeyTestDefaults()
            .name("databases-" + version)
            .args("--scenario", "databases", "--redis", redis.address())
            .run();
    Check.all(
        c,
        "jedis " + version + " reconnecting",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () ->
            assertEquals(
                0,
                c.result(DatabasesResults.MISMATCHES),
                () -> "wrong values: " + c.result(DatabasesResults.EXAMPLES)),
        () ->
            assertTrue(c.result(DatabasesResults.JMX.cacheHits()) > 0, () -> "nothing was served"));
  }
}
