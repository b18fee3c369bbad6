package io.hotkey.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** One real Redis per test class; FLUSHALL + CONFIG RESETSTAT before each test. */
public abstract class RedisTestBase {
  protected static RedisServer redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisServers.start();
    System.out.println("[it] using " + redis);
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  @BeforeEach
  void resetRedis() {
    redis.reset();
  }
}
