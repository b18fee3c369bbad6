package io.hotkey.agent.tracking;

import static io.hotkey.agent.tracking.TrackingServers.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.RemainingTtls;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The agent's own connections against a real server: a key's TTL is asked in the database it was
 * read in, a round's touches reach Redis's LFU counter, and a server whose ACL refuses {@code
 * TOUCH} is not sent another while TTLs are still asked (Redis 7, whose statistics count refused
 * commands). Requests of one server go in order on one connection, so a question answered after a
 * touch tells that the touch was done.
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
}
