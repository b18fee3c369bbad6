package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ExpiryResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

/**
 * No read gets a hot key's value more than 10 ms after the key's TTL, however the TTL was given
 * ({@code SET} with an expiry, {@code SETEX}, the {@code EXPIRE} family, {@code GETEX}, {@code
 * RESTORE}, {@code SET KEEPTTL}), by another process, while the agent serves the key: each entry
 * lives until its key's TTL as Redis reported it at the fill. Redis holds 100,000 other keys with
 * hour-long TTLs, so its active expiry does not happen to find the hot key in time; a served read
 * never reaches Redis, so its lazy expiry does not either. With {@code invalidation=ttl} the agent
 * does not see another process's changes, so only a TTL the key had when it was filled applies.
 */
@SideLane
class ExpiryIT {
  static final List<String> CASES =
      List.of(
          "initial",
          "SET-PX",
          "SET-EX",
          "SET-PXAT",
          "SETEX",
          "PSETEX",
          "EXPIRE",
          "PEXPIRE",
          "PEXPIREAT",
          "GETEX",
          "SET-KEEPTTL",
          "RESTORE");

  /** The target: at most this late by the application's clock. */
  private static final long MAX_LATE_MICROS = 10_000;

  // each client and each invalidation mode on Redis 6.2 and on Redis 7
  @ParameterizedTest(name = "{0} {1} redis {2}")
  @CsvSource({"jedis, tracking, 6.2", "lettuce, tracking, 7", "jedis, ttl, 7", "lettuce, ttl, 6.2"})
  void noReadGetsTheValueAfterItsTtl(String client, String invalidation, String redisVersion) {
    RedisServer server =
        redisVersion.equals("7")
            ? RedisServers.startRedis7("expiry-redis-7")
            : RedisServers.start();
    try {
      try (Jedis j = server.jedis()) {
        j.eval(
            "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'filler:' .. i, 'x', 'EX', 3600) end",
            0,
            "100000");
      }
      List<String> cases = invalidation.equals("ttl") ? List.of("initial") : CASES;
      ChildRun c = run(client, invalidation, server.address(), "{expiry}:" + client, cases);
      checkNoneLate(c, "expiry " + client + " " + invalidation + " redis " + redisVersion, cases);
    } finally {
      server.close();
    }
  }

  /** Runs the expiry app against {@code nodes} (several: a Cluster). */
  static ChildRun run(
      String client, String invalidation, String nodes, String key, List<String> cases) {
    return AgentJvm.app(
            "expiry-" + client + "-" + invalidation + (nodes.contains(",") ? "-cluster" : ""),
            Clients.newestClasspath(client),
            "io.hotkey.it.app.ExpiryApp")
        .fullJit()
        .hotkeyTestDefaults()
        .prop("hotkey.cache.ttl", "30s")
        .prop("hotkey.cache.invalidation", invalidation)
        .timeout(Duration.ofMinutes(2))
        .args(
            "--client", client, "--redis", nodes, "--key", key, "--cases", String.join(",", cases))
        .run(name -> "");
  }

  /** Every case was served by the agent before its TTL, and no read got its value 10 ms after. */
  static void checkNoneLate(ChildRun c, String heading, List<String> cases) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    checks.add(() -> assertTrue(c.result(ExpiryResults.WARMUP.hotViaJmx()), "never hot"));
    for (String expiryCase : cases) {
      checks.add(
          () ->
              assertTrue(
                  c.result(ExpiryResults.hits(expiryCase)) > 0,
                  expiryCase + ": the agent served none of the reads before the TTL"));
      checks.add(
          () -> {
            long late = c.result(ExpiryResults.lateMicros(expiryCase));
            assertTrue(
                late <= MAX_LATE_MICROS,
                expiryCase + ": a read got the value " + late + " µs late");
          });
    }
    Check.all(c, heading, checks.toArray(new Executable[0]));
  }
}
