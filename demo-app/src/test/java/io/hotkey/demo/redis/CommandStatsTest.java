package io.hotkey.demo.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

class CommandStatsTest {

  private static RedisEndpoint redis;

  @BeforeAll
  static void startRedis() {
    redis = RedisEndpoint.startEmbedded();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Test
  void countsExactlyTheCallsMadeBetweenTwoSnapshots() {
    try (Jedis connection = redis.newConnection()) {
      connection.set("stats:string", "v");
      connection.hset("stats:hash", "field", "v");
      CommandStats before = CommandStats.read(connection);

      connection.get("stats:string");
      connection.get("stats:string");
      connection.get("stats:missing");
      connection.hgetAll("stats:hash");
      connection.hgetAll("stats:hash");

      CommandStats after = CommandStats.read(connection);
      assertEquals(3, after.callsSince(before, "get"));
      assertEquals(2, after.callsSince(before, "hgetall"));
      assertEquals(5, after.callsSince(before, "GET", "HGETALL"));
      assertEquals(0, after.callsSince(before, "set"));
    }
  }

  @Test
  void parsesTheRealInfoReplyAndTreatsUnseenCommandsAsZero() {
    try (Jedis connection = redis.newConnection()) {
      connection.set("stats:parse", "v");
      String reply = connection.info("commandstats");
      assertTrue(reply.contains("cmdstat_set:calls="), reply);

      CommandStats stats = CommandStats.parse(reply);
      assertTrue(stats.calls("set") >= 1);
      assertTrue(
          stats.calls("info") >= 1, "the INFO call itself is counted before the reply is built");
      assertEquals(0, stats.calls("georadius"));
    }
  }
}
