package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.EvictionResults;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

/**
 * Redis's eviction keeps seeing a hot key the agent serves as read: the agent touches the keys it
 * served once a second on its own connection. A cache-aside application reads a hot key while cold
 * keys fill a Redis at its {@code maxmemory}; the same application runs at the same time without
 * the agent against a second Redis configured alike. With the agent the hot key is evicted no more
 * often than without it, its {@code OBJECT IDLETIME} stays within the touch round under an LRU
 * policy, and under an LFU policy its {@code OBJECT FREQ} does not lose the step the counter's
 * decay takes every {@code lfu-decay-time} minute (1 here; {@code lfu-log-factor 0} makes every
 * access count, so one touch a second outpaces it, while without touches the counter would end one
 * step lower).
 */
class EvictionIT extends RedisTestBase {
  private static RedisServer withoutAgent;

  @BeforeAll
  static void startSecondRedis() {
    withoutAgent = RedisServers.start();
  }

  @AfterAll
  static void stopSecondRedis() {
    withoutAgent.close();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "jedis, allkeys-lru, false",
    "lettuce, volatile-lru, true",
    "jedis, allkeys-lfu, false",
    "lettuce, volatile-lfu, true"
  })
  void aServedHotKeyIsEvictedNoMoreOftenThanWithoutTheAgent(
      String client, String policy, boolean volatileKeys) throws Exception {
    boolean lfu = policy.endsWith("lfu");
    withoutAgent.reset();
    for (RedisServer server : new RedisServer[] {redis, withoutAgent}) {
      try (Jedis j = server.jedis()) {
        j.configSet("maxmemory", "20mb");
        j.configSet("maxmemory-policy", policy);
        j.configSet("lfu-log-factor", "0");
        j.configSet("lfu-decay-time", "1");
      }
    }
    try {
      String key = "{eviction}:" + client + ":" + policy;
      CompletableFuture<ChildRun> baseline =
          CompletableFuture.supplyAsync(
              () ->
                  app(client, policy, withoutAgent, key, lfu, volatileKeys)
                      .name("eviction-" + client + "-" + policy + "-without-agent")
                      .withoutAgent()
                      .run());
      ChildRun agent =
          app(client, policy, redis, key, lfu, volatileKeys)
              .hotkeyTestDefaults()
              // promoted after a few dozen reads
              .prop("hotkey.detect.threshold", "20")
              .prop("hotkey.cache.ttl", "10m")
              .run();
      ChildRun plain = baseline.get();
      Check.all(
          agent,
          client + " " + policy,
          () -> assertEquals(0, agent.exitCode(), "exit code with the agent"),
          () -> assertEquals(0, plain.exitCode(), () -> "exit code without it: " + plain.summary()),
          () ->
              assertTrue(
                  agent.result(EvictionResults.HITS) * 2 > agent.result(EvictionResults.READS),
                  "the agent served most reads"),
          () ->
              assertTrue(
                  agent.result(EvictionResults.EVICTED) > 0
                      && plain.result(EvictionResults.EVICTED) > 0,
                  "Redis evicted cold keys in both runs"),
          () ->
              assertTrue(
                  agent.result(EvictionResults.RELOADS) <= plain.result(EvictionResults.RELOADS),
                  () ->
                      "the hot key was evicted "
                          + agent.result(EvictionResults.RELOADS)
                          + " times with the agent, "
                          + plain.result(EvictionResults.RELOADS)
                          + " without"),
          () -> {
            if (lfu) {
              long start = agent.result(EvictionResults.FREQ_START);
              long end = agent.result(EvictionResults.FREQ_END);
              assertTrue(start < 255, "promoted after few reads: OBJECT FREQ " + start);
              assertTrue(end >= start, "OBJECT FREQ fell from " + start + " to " + end);
            } else {
              long idle = agent.result(EvictionResults.IDLE_SECONDS);
              assertTrue(idle <= 2, "OBJECT IDLETIME " + idle + " s while served");
            }
          });
    } finally {
      for (RedisServer server : new RedisServer[] {redis, withoutAgent}) {
        try (Jedis j = server.jedis()) {
          j.configSet("maxmemory", "0");
          j.configSet("maxmemory-policy", "noeviction");
        }
      }
    }
  }

  private static AgentJvm app(
      String client,
      String policy,
      RedisServer server,
      String key,
      boolean lfu,
      boolean volatileKeys) {
    return AgentJvm.app(
            "eviction-" + client + "-" + policy,
            Clients.newestClasspath(client),
            "io.hotkey.it.app.EvictionApp")
        .timeout(Duration.ofMinutes(3))
        .args(
            "--client",
            client,
            "--redis",
            server.address(),
            "--key",
            key,
            "--seconds",
            // an LFU run lasts past a minute boundary of Redis's clock anyway
            lfu ? "15" : "10",
            "--lfu",
            Boolean.toString(lfu),
            "--volatile",
            Boolean.toString(volatileKeys),
            "--warmup-reads-per-second",
            "50");
  }
}
