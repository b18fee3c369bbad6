package io.hotkey.agent.tracking;

import static io.hotkey.agent.tracking.TrackingServers.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.redis.resp.ClusterSlots;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisClusterProcesses;
import io.hotkey.agent.testing.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The agent's own connections against a real server: a key's TTL is asked in the database it was
 * read in, a round's touches reach Redis's LFU counter, and a server whose ACL refuses {@code
 * TOUCH} is not sent another while TTLs are still asked (Redis 7, whose statistics count refused
 * commands), and a Cluster node, which refuses a {@code TOUCH} of keys in several slots, has the
 * same round's keys touched slot by slot. Requests of one server go in order on one connection, so
 * a question answered after a touch tells that the touch was done.
 */
class OwnConnectionsTest {
  private static final byte[] KEY = "session:7".getBytes(StandardCharsets.UTF_8);

  /** The least remaining TTL the server answered for {@code KEY}, asked after what came before. */
  private static long pttl(OwnConnections own, RedisEndpoint server, int database)
      throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    boolean asked =
        own.ask(
            server,
            database,
            new byte[][] {KEY},
            new RemainingTtls.Answer() {
              @Override
              public void answered(long sentAtNanos, long leastRemainingMillis) {
                answer.complete(leastRemainingMillis);
              }

              @Override
              public void unanswered() {
                answer.completeExceptionally(new IllegalStateException("unanswered"));
              }
            });
    assertTrue(asked, "asked");
    return answer.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aKeysTtlIsAskedInTheDatabaseItWasReadIn() throws Exception {
    try (RedisProcess redis = RedisProcess.start();
        RespConnection admin = TrackingServers.connect(redis)) {
      call(admin, "SET", "session:7", "db0 has it without a TTL");
      call(admin, "SELECT", "3");
      call(admin, "SET", "session:7", "db3 has it for an hour", "EX", "3600");
      OwnConnections own = new OwnConnections(null);
      RedisEndpoint server = TrackingServers.endpoint(redis);

      long inDatabase3 = pttl(own, server, 3);
      assertTrue(inDatabase3 > 3_500_000 && inDatabase3 <= 3_600_000, "db 3: " + inDatabase3);
      assertEquals(RemainingTtls.NO_TTL, pttl(own, server, 0));
    }
  }

  @Test
  void aRoundsTouchesCountAsReadsInRedisLfu() throws Exception {
    try (RedisProcess redis = RedisProcess.start();
        RespConnection admin = TrackingServers.connect(redis)) {
      // with a log factor of 0 every access adds one to the counter
      call(admin, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
      call(admin, "CONFIG", "SET", "lfu-log-factor", "0");
      call(admin, "SET", "session:7", "v");
      long before = (Long) call(admin, "OBJECT", "FREQ", "session:7");
      OwnConnections own = new OwnConnections(null);
      RedisEndpoint server = TrackingServers.endpoint(redis);

      own.touch(server, 0, List.of(KEY, "other".getBytes(StandardCharsets.UTF_8)));
      own.touch(server, 0, List.of(KEY));
      pttl(own, server, 0);
      assertEquals(before + 2, (Long) call(admin, "OBJECT", "FREQ", "session:7"));
    }
  }

  @Test
  void aTouchTheAclRefusesIsNotSentAgainAndTtlsAreStillAsked() throws Exception {
    try (RedisProcess redis = RedisProcess.start(RedisBuild.DEBIAN_7);
        RespConnection admin = TrackingServers.connect(redis)) {
      call(admin, "ACL", "SETUSER", "app", "on", ">secret", "~*", "+@all", "-touch");
      call(admin, "SET", "session:7", "v", "EX", "60");
      OwnConnections own = new OwnConnections(null);
      RedisEndpoint server = TrackingServers.endpoint(redis).withCredentials("app", "secret");

      own.touch(server, 0, List.of(KEY));
      assertTrue(pttl(own, server, 0) > 0, "TTLs are asked after the refusal");
      own.touch(server, 0, List.of(KEY));
      pttl(own, server, 0);
      String touch =
          new String((byte[]) call(admin, "INFO", "commandstats"), StandardCharsets.UTF_8)
              .lines()
              .filter(line -> line.startsWith("cmdstat_touch:"))
              .findFirst()
              .orElse("no cmdstat_touch line");
      // Redis 7 counts a command its ACL refused as rejected, not as a call
      assertTrue(
          touch.startsWith("cmdstat_touch:calls=0,") && touch.contains(",rejected_calls=1,"),
          "one TOUCH tried, and refused: " + touch);
    }
  }

  @Test
  void aClusterNodeHasARoundOfKeysInSeveralSlotsTouchedSlotBySlot() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(1)) {
      cluster.call(0, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
      cluster.call(0, "CONFIG", "SET", "lfu-log-factor", "0");
      // two slots of their own and one slot shared by two keys
      List<String> keys = List.of("session:7", "session:8", "{cart}:1", "{cart}:2");
      assertEquals(
          3,
          keys.stream()
              .map(key -> ClusterSlots.slot(key.getBytes(StandardCharsets.UTF_8)))
              .distinct()
              .count());
      for (String key : keys) {
        cluster.call(0, "SET", key, "v");
      }
      List<Long> before = frequencies(cluster, keys);
      OwnConnections own = new OwnConnections(null);
      RedisEndpoint node = cluster.endpoint(0);
      List<byte[]> round = keys.stream().map(key -> key.getBytes(StandardCharsets.UTF_8)).toList();

      // the first round learns that the node is a Cluster's and is sent again by slot
      own.touch(node, 0, round);
      TrackingServers.await(
          "every key touched once", () -> frequencies(cluster, keys).equals(plus(before, 1)));
      own.touch(node, 0, round);
      pttl(own, node, 0);
      assertEquals(plus(before, 2), frequencies(cluster, keys));
    }
  }

  private static List<Long> frequencies(RedisClusterProcesses cluster, List<String> keys) {
    return keys.stream()
        .map(
            key -> {
              try {
                return (Long) cluster.call(0, "OBJECT", "FREQ", key);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .collect(Collectors.toList());
  }

  private static List<Long> plus(List<Long> counts, long step) {
    return counts.stream().map(count -> count + step).collect(Collectors.toList());
  }
}
