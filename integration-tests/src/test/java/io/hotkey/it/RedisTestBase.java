package io.hotkey.it;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * One real Redis per test class, its own, so that classes may run side by side; FLUSHALL + CONFIG
 * RESETSTAT before each test.
 */
public abstract class RedisTestBase {
  private static final Map<Class<?>, RedisServer> servers = new ConcurrentHashMap<>();

  protected RedisServer redis;

  @BeforeEach
  void resetRedis() {
    redis =
        servers.computeIfAbsent(
            getClass(),
            testClass -> {
              RedisServer server = RedisServers.start();
              System.out.println("[it] " + testClass.getSimpleName() + " using " + server);
              return server;
            });
    redis.reset();
  }

  @AfterAll
  static void stopRedis(TestInfo testClass) {
    testClass.getTestClass().map(servers::remove).ifPresent(RedisServer::close);
  }
}
