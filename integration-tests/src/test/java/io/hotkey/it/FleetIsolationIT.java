package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.post;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fleet Redis the agent cannot use (nothing listens at its port, or it refuses the agent's login)
 * turns off only fleet detection: the same JVM still serves its own hot key locally, every read
 * with the value in Redis, and replays a request's answer for its Idempotency-Key; the log says
 * once that the fleet's exchange failed.
 */
class FleetIsolationIT extends RedisTestBase {
  private static final String HOT = "isolated:product:1";

  @ParameterizedTest(name = "fleet Redis {0}")
  @ValueSource(strings = {"unreachable", "refusing"})
  void localServingAndIdempotencyOutliveAFleetRedisThatCannotBeUsed(String fleetRedis)
      throws Exception {
    String uri =
        fleetRedis.equals("unreachable")
            ? "redis://127.0.0.1:" + RedisServers.freePort()
            : "redis://:not-the-password@" + redis.address();
    try (LiveService app =
        LiveService.start(
            LiveService.app(redis)
                .prop("hotkey.detect.fleet-threshold", "100")
                .prop("hotkey.fleet.redis.uri", uri)
                .prop("hotkey.idempotency.routes", "POST /write")
                .name("fleet-isolated-" + fleetRedis))) {
      assertTrue(
          app.jvm().awaitAgentLine("fleet hot-key exchange failed", Duration.ofSeconds(20)),
          () -> "no line saying the fleet's exchange failed:\n" + app.jvm().output());

      app.load(HOT, 600);
      app.awaitHot(HOT, 300);
      app.awaitHitsMoving();
      assertEquals(0, app.wrongReads(), "reads that returned another value than Redis holds");

      String key = UUID.randomUUID().toString();
      String write = app.jvm().base() + "/write?key=isolated:w&rate=0";
      HttpResponse<byte[]> first = send(post(write, key, "{}"));
      HttpResponse<byte[]> again = send(post(write, key, "{}"));
      assertEquals(200, first.statusCode(), () -> text(first));
      assertFalse(replayed(first), "the first request was answered from the store");
      assertEquals(200, again.statusCode(), () -> text(again));
      assertTrue(replayed(again), "the retry ran again instead of being replayed");
      assertEquals(
          1,
          app.jvm().output().split("fleet hot-key exchange failed", -1).length - 1,
          "lines about the fleet's failed exchanges");
    }
  }
}
