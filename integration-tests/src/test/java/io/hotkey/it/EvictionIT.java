package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.EvictionResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;

/**
 * Redis's eviction keeps seeing a hot key the agent serves as read: the agent touches the keys it
 * served once a second on its own connection to each node. A cache-aside application reads a hot
 * key while cold keys fill a Redis at its {@code maxmemory}; the same application runs at the same
 * time without the agent against a second Redis configured alike. With the agent the hot key is
 * evicted no more often than without it, its {@code OBJECT IDLETIME} stays within the touch round
 * under an LRU policy, and under an LFU policy its {@code OBJECT FREQ} does not lose the step the
 * counter's decay takes every {@code lfu-decay-time} minute (1 here; {@code lfu-log-factor 0} makes
 * every access count, so one touch a second outpaces it, while without touches the counter would
 * end one step lower).
 *
 * <p>An LFU run must last past a minute boundary of Redis's clock, so both LFU cases (on a
 * standalone server, each on a pair of servers of its own) start when the class does, and run while
 * the LRU cases, on a standalone pair and on a pair of 3-master Clusters, run one after the other.
 * More at once would only queue for the CPU. As the class mostly waits for that minute and starts
 * every server it uses, it runs beside the others ({@link SideLane}).
 */
@SideLane
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvictionIT {
  private static final List<String> LFU_CASES =
      List.of("jedis allkeys-lfu", "lettuce volatile-lfu");

  private static final String STANDALONE_MAXMEMORY = "20mb";

  /**
   * Each master gets a third of the cold writes and a maxmemory that holds about as many seconds of
   * them as the standalone server does (a Cluster node starts with about 0.6 MB more).
   */
  private static final String CLUSTER_MAXMEMORY = "8mb";

  /** Threads that wait for child JVMs: the common pool may have a single one on 2 cores. */
  private static final ExecutorService waiting = Executors.newCachedThreadPool();

  private static final Map<String, CompletableFuture<Pair>> lfuRuns = new ConcurrentHashMap<>();
  private static final List<RedisServer> servers = new ArrayList<>();
  private static RedisServer withAgent;
  private static RedisServer withoutAgent;
  private static CompletableFuture<RedisCluster> clusterWithAgent;
  private static CompletableFuture<RedisCluster> clusterWithoutAgent;

  /** One case's two runs: with the agent, and the same application without it. */
  private record Pair(ChildRun agent, ChildRun plain) {}

  @BeforeAll
  static void startTheLfuRunsAndTheServers() {
    clusterWithAgent = CompletableFuture.supplyAsync(() -> RedisServers.startCluster(3), waiting);
    clusterWithoutAgent =
        CompletableFuture.supplyAsync(() -> RedisServers.startCluster(3), waiting);
    for (String lfuCase : LFU_CASES) {
      String[] clientAndPolicy = lfuCase.split(" ");
      RedisServer agentSide = RedisServers.start();
      servers.add(agentSide);
      RedisServer plainSide = RedisServers.start();
      servers.add(plainSide);
      configure(List.of(agentSide, plainSide), STANDALONE_MAXMEMORY, clientAndPolicy[1]);
      lfuRuns.put(
          lfuCase,
          CompletableFuture.supplyAsync(
              () -> runPair(clientAndPolicy[0], clientAndPolicy[1], agentSide, plainSide),
              waiting));
    }
    withAgent = RedisServers.start();
    servers.add(withAgent);
    withoutAgent = RedisServers.start();
    servers.add(withoutAgent);
  }

  @AfterAll
  static void stopTheServers() {
    // a run left behind by a failed case ends within its timeout
    CompletableFuture.allOf(lfuRuns.values().toArray(CompletableFuture[]::new))
        .exceptionally(failure -> null)
        .join();
    servers.forEach(RedisServer::close);
    for (CompletableFuture<RedisCluster> cluster : List.of(clusterWithAgent, clusterWithoutAgent)) {
      cluster.thenAccept(RedisCluster::close).exceptionally(failure -> null).join();
    }
    waiting.shutdown();
  }

  @Order(1)
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"jedis, allkeys-lru", "lettuce, volatile-lru"})
  void anLruIdleTimeStaysWithinTheTouchRound(String client, String policy) {
    withAgent.reset();
    withoutAgent.reset();
    List<RedisServer> both = List.of(withAgent, withoutAgent);
    configure(both, STANDALONE_MAXMEMORY, policy);
    try {
      check(client + " " + policy, runPair(client, policy, withAgent, withoutAgent), 1, false);
    } finally {
      restore(both);
    }
  }

  @Order(2)
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"jedis, allkeys-lru", "lettuce, volatile-lru"})
  void onAClusterTheHotKeysMasterSeesItTouched(String client, String policy) {
    RedisCluster withAgent = clusterWithAgent.join();
    RedisCluster withoutAgent = clusterWithoutAgent.join();
    withAgent.reset();
    withoutAgent.reset();
    List<RedisServer> masters = new ArrayList<>(withAgent.nodes());
    masters.addAll(withoutAgent.nodes());
    configure(masters, CLUSTER_MAXMEMORY, policy);
    try {
      Pair runs =
          runPair(
              client,
              policy,
              withAgent.addresses(),
              withoutAgent.addresses(),
              "{eviction}:cluster:" + client + ":" + policy);
      check(client + " " + policy + " cluster", runs, 3, false);
    } finally {
      restore(masters);
    }
  }

  /** Waits for the case's runs, which started with the class. */
  @Order(3)
  @ParameterizedTest(name = "{0}")
  @MethodSource("lfuCases")
  void anLfuCounterDoesNotDecayWhileTheKeyIsServed(String lfuCase) throws Exception {
    check(lfuCase, lfuRuns.get(lfuCase).get(), 1, true);
  }

  static Stream<String> lfuCases() {
    return LFU_CASES.stream();
  }

  private static void configure(List<RedisServer> nodes, String maxmemory, String policy) {
    for (RedisServer node : nodes) {
      try (Jedis j = node.jedis()) {
        j.configSet("maxmemory", maxmemory);
        j.configSet("maxmemory-policy", policy);
        j.configSet("lfu-log-factor", "0");
        j.configSet("lfu-decay-time", "1");
      }
    }
  }

  /** Redis's defaults. */
  private static void restore(List<RedisServer> nodes) {
    for (RedisServer node : nodes) {
      try (Jedis j = node.jedis()) {
        j.configSet("maxmemory", "0");
        j.configSet("maxmemory-policy", "noeviction");
        j.configSet("lfu-log-factor", "10");
        j.configSet("lfu-decay-time", "1");
      }
    }
  }

  private static Pair runPair(
      String client, String policy, RedisServer agentSide, RedisServer plainSide) {
    return runPair(
        client,
        policy,
        agentSide.address(),
        plainSide.address(),
        "{eviction}:" + client + ":" + policy);
  }

  /** Runs the application with the agent and, at the same time, without it. */
  private static Pair runPair(
      String client, String policy, String agentNodes, String plainNodes, String key) {
    String name =
        "eviction-" + client + "-" + policy + (agentNodes.contains(",") ? "-cluster" : "");
    CompletableFuture<ChildRun> plain =
        CompletableFuture.supplyAsync(
            () ->
                app(name + "-without-agent", client, policy, plainNodes, key).withoutAgent().run(),
            waiting);
    ChildRun agent =
        app(name, client, policy, agentNodes, key)
            .hotkeyTestDefaults()
            // promoted after a few dozen reads
            .prop("hotkey.detect.threshold", "20")
            .prop("hotkey.cache.ttl", "10m")
            .run();
    return new Pair(agent, plain.join());
  }

  private static void check(String heading, Pair runs, long nodes, boolean lfu) {
    ChildRun agent = runs.agent();
    ChildRun plain = runs.plain();
    Check.all(
        agent,
        heading,
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
                "the hot key's node evicted cold keys in both runs"),
        () ->
            assertEquals(
                List.of(nodes, nodes),
                List.of(
                    agent.result(EvictionResults.EVICTING_NODES),
                    plain.result(EvictionResults.EVICTING_NODES)),
                "every master evicted in both runs"),
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
  }

  private static AgentJvm app(String name, String client, String policy, String nodes, String key) {
    boolean lfu = policy.endsWith("lfu");
    return AgentJvm.app(name, Clients.newestClasspath(client), "io.hotkey.it.app.EvictionApp")
        .timeout(Duration.ofMinutes(3))
        .args(
            "--client",
            client,
            "--redis",
            nodes,
            "--key",
            key,
            "--seconds",
            // an LFU run lasts past a minute boundary of Redis's clock anyway
            lfu ? "15" : "10",
            "--lfu",
            Boolean.toString(lfu),
            "--volatile",
            Boolean.toString(policy.startsWith("volatile")),
            "--warmup-reads-per-second",
            "50");
  }
}
