package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.WriteThenReadResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * No entry filled before a write is served after it: with every key served from its first access
 * ({@code hotkey.debug.every-key-hot}, written keys too), keys read on two connections, written
 * through one path (the same connection, another one, a pipeline, a transaction) and read at once
 * on both always give the written value, on both clients, standalone and on a 3-master Cluster. The
 * sequence {@code SET k v; GET k} on one connection gets {@code v}: from Redis, or (Lettuce) from
 * the entry the write's own reply stored, which is why such a {@code GET} may not reach Redis. On
 * Lettuce a read another thread sends through the connection right after a write that was not
 * awaited sees it too, as without the agent (connection order). A key served locally for 5 s still
 * looks read to its node ({@code OBJECT IDLETIME} at most 2 s): the agent touches it there every
 * second, on a Cluster on the node that holds it.
 */
class WriteThenReadIT extends RedisTestBase {
  private static RedisCluster cluster;

  @BeforeAll
  static void useTheSharedCluster() {
    cluster = RedisServers.sharedCluster();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"jedis, standalone", "lettuce, standalone", "jedis, cluster", "lettuce, cluster"})
  void aReadAfterAWriteGetsTheWrittenValue(String client, String topology) {
    boolean onCluster = topology.equals("cluster");
    if (onCluster) {
      cluster.reset();
    }
    ChildRun c =
        AgentJvm.app(
                "write-then-read-" + client + "-" + topology,
                Clients.newestClasspath(client),
                "io.hotkey.it.app.WriteThenReadApp")
            .prop("hotkey.debug.every-key-hot", "true")
            .prop("hotkey.detect.threshold", "1")
            .prop("hotkey.detect.window", "50ms")
            .prop("hotkey.detect.write-threshold", "1000000000")
            .timeout(Duration.ofMinutes(2))
            .args(
                "--client",
                client,
                "--redis",
                onCluster ? cluster.addresses() : redis.address(),
                "--rounds",
                "500")
            .run();
    List<String> paths =
        onCluster ? List.of("same", "other") : List.of("same", "other", "pipeline", "transaction");
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), "exit code"));
    for (String path : paths) {
      checks.add(
          () -> assertEquals(500L, c.result(WriteThenReadResults.rounds(path)), path + " rounds"));
      checks.add(
          () ->
              assertEquals(
                  0L,
                  c.result(WriteThenReadResults.mismatches(path)),
                  path + ": reads right after the write that missed it"));
    }
    checks.add(
        () ->
            assertEquals(
                0L, c.result(WriteThenReadResults.SET_GET_MISMATCHES), "SET k v; GET k: not v"));
    if (client.equals("lettuce")) {
      checks.add(
          () ->
              assertEquals(
                  0L,
                  c.result(WriteThenReadResults.UNAWAITED_MISMATCHES),
                  "a read sent behind an unawaited write on its connection that missed it"));
    }
    checks.add(
        () ->
            assertTrue(
                c.result(WriteThenReadResults.HITS) > 1000,
                "the agent served the reads before the writes: "
                    + c.result(WriteThenReadResults.HITS)));
    checks.add(
        () -> {
          long idle = c.result(WriteThenReadResults.IDLE_WHILE_SERVED);
          assertTrue(idle <= 2, "OBJECT IDLETIME " + idle + " s on its node after 5 s served");
        });
    Check.all(c, client + " " + topology, checks.toArray(new Executable[0]));
  }
}
