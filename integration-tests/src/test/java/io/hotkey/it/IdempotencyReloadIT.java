package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.PAYLOAD;
import static io.hotkey.it.IdempotencyOverHttp.isProblem;
import static io.hotkey.it.IdempotencyOverHttp.post;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static io.hotkey.it.LiveConfigFile.assertReloaded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The idempotency routes and {@code require-key} changed in the properties file of a running
 * application on the JDK's HTTP server, its records in a real Redis: a route added makes a retry
 * with the same key a replay, {@code require-key} turned on answers a keyless request 400 without
 * running the handler, and both turned back off run every request again. The handler appends a line
 * to a runs file per run.
 */
class IdempotencyReloadIT extends RedisTestBase {
  private static final String ORDERS =
      """
      hotkey.report.interval=0
      hotkey.idempotency.routes=POST /orders
      hotkey.idempotency.require-key=false
      """;
  private static final String ORDERS_AND_REFUNDS_KEYED =
      """
      hotkey.report.interval=0
      hotkey.idempotency.routes=POST /orders, POST /refunds
      hotkey.idempotency.require-key=true
      """;

  @TempDir Path dir;

  @Test
  void aRouteAddedReplaysRetriesAndRequireKeyRefusesKeylessRequests() throws Exception {
    Path runs = Files.createTempFile(ItConfig.workDir(), "runs-", ".txt");
    LiveConfigFile file = LiveConfigFile.create(dir, ORDERS);
    try (RunningJvm app =
        AgentJvm.app(
                "reload-idempotency",
                ItConfig.appClasses().toString(),
                "io.hotkey.it.app.IdempotentOrdersApp")
            .prop("hotkey.config", file.path().toString())
            .prop("hotkey.idempotency.store", "redis")
            .prop("hotkey.idempotency.redis.uri", "redis://" + redis.address())
            .args("--runs", runs.toString())
            .timeout(Duration.ofSeconds(40))
            .start()) {
      String orders = app.base() + "/orders";
      String refunds = app.base() + "/refunds";
      String before = UUID.randomUUID().toString();
      assertEquals(201, send(post(refunds, before, PAYLOAD)).statusCode());
      HttpResponse<byte[]> notARoute = send(post(refunds, before, PAYLOAD));
      assertEquals(201, notARoute.statusCode(), () -> text(notARoute));
      assertFalse(replayed(notARoute), "replayed on a path that is not a route");
      assertEquals(201, send(post(orders, null, PAYLOAD)).statusCode(), "keyless order");
      assertEquals(3, runs(runs));

      file.save(ORDERS_AND_REFUNDS_KEYED);
      assertReloaded(app, "hotkey.idempotency.routes: POST /orders -> POST /orders, POST /refunds");
      assertReloaded(app, "hotkey.idempotency.require-key: false -> true");
      String key = UUID.randomUUID().toString();
      HttpResponse<byte[]> first = send(post(refunds, key, PAYLOAD));
      assertEquals(201, first.statusCode(), () -> text(first));
      HttpResponse<byte[]> retry = send(post(refunds, key, PAYLOAD));
      assertTrue(replayed(retry), () -> "a retry on the added route ran: " + text(retry));
      assertArrayEquals(first.body(), retry.body());
      HttpResponse<byte[]> keyless = send(post(orders, null, PAYLOAD));
      assertEquals(400, keyless.statusCode(), () -> text(keyless));
      assertTrue(isProblem(keyless), () -> text(keyless));
      assertEquals(4, runs(runs), "runs: the retry was replayed, the keyless order refused");
      try (Jedis jedis = redis.jedis()) {
        assertFalse(jedis.keys("hotkey:idem:*").isEmpty(), "no record in Redis");
      }

      file.save(ORDERS);
      assertReloaded(app, "hotkey.idempotency.routes: POST /orders, POST /refunds -> POST /orders");
      assertReloaded(app, "hotkey.idempotency.require-key: true -> false");
      HttpResponse<byte[]> routeRemoved = send(post(refunds, key, PAYLOAD));
      assertEquals(201, routeRemoved.statusCode(), () -> text(routeRemoved));
      assertFalse(replayed(routeRemoved), "replayed once the route was removed");
      assertEquals(201, send(post(orders, null, PAYLOAD)).statusCode(), "keyless order");
      assertEquals(6, runs(runs));
    }
  }

  private static int runs(Path file) throws Exception {
    return Files.readAllLines(file).size();
  }
}
