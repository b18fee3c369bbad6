package io.hotkey.it;

import static io.hotkey.it.IdempotencyOverHttp.header;
import static io.hotkey.it.IdempotencyOverHttp.isProblem;
import static io.hotkey.it.IdempotencyOverHttp.jmxOutcomes;
import static io.hotkey.it.IdempotencyOverHttp.post;
import static io.hotkey.it.IdempotencyOverHttp.replayed;
import static io.hotkey.it.IdempotencyOverHttp.send;
import static io.hotkey.it.IdempotencyOverHttp.sendAsync;
import static io.hotkey.it.IdempotencyOverHttp.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Idempotency-Key on the JDK's {@code com.sun.net.httpserver.HttpServer} over real sockets, with no
 * code change: child JVMs with {@code -javaagent:} run {@code io.hotkey.it.app.IdempotentOrdersApp}
 * with {@code hotkey.idempotency.routes=POST /orders, POST /refunds}, on the {@code memory} store
 * and on the {@code redis} store against a real redis-server. The handler appends a line to a runs
 * file per run, so runs are counted across kills and restarts of the application.
 */
@SideLane
class JdkHttpIdempotencyIT extends RedisTestBase {
  private static final String APP = "io.hotkey.it.app.IdempotentOrdersApp";
  private static final String ROUTES = "POST /orders, POST /refunds";

  /**
   * Long enough for a new child JVM to start while a dead claim still blocks its key, even on a
   * busy machine (startups of 1-4 s seen on 2 cores at load 10); only the killed-handler test waits
   * it out.
   */
  private static final Duration LEASE = Duration.ofSeconds(10);

  @ParameterizedTest(name = "store={0}")
  @ValueSource(strings = {"memory", "redis"})
  void oneKeyRunsOnceAndRecordsNeverShared(String store) throws Exception {
    Path runs = runsFile();
    try (RunningJvm app = start(store, redis, runs)) {
      String orders = app.base() + "/orders";
      IdempotencyOverHttp http =
          new IdempotencyOverHttp(
                  "jdk-httpserver/" + store, app.base(), "/orders", () -> runs(runs))
              .exceptionClosesConnection();
      http.proveAll();
      new PlaybookOverHttp("jdk-httpserver/" + store, app.base(), http).proveAll();

      // while the first request runs: 409 with Retry-After within the lease, 422 for another
      // payload
      String key = UUID.randomUUID().toString();
      int before = runs(runs);
      CompletableFuture<HttpResponse<byte[]>> first =
          sendAsync(post(orders, key, "{\"sku\":9}", "X-Mode", "slow", "X-Sleep", "3000"));
      awaitRuns(runs, before + 1);
      HttpResponse<byte[]> running = send(post(orders, key, "{\"sku\":9}"));
      assertEquals(409, running.statusCode(), () -> text(running));
      long retryAfter = Long.parseLong(header(running, "Retry-After"));
      assertTrue(retryAfter >= 1 && retryAfter <= LEASE.toSeconds(), "Retry-After " + retryAfter);
      assertTrue(isProblem(running));
      assertEquals(422, send(post(orders, key, "{\"sku\":10}")).statusCode());
      HttpResponse<byte[]> done = first.get(30, TimeUnit.SECONDS);
      assertEquals(201, done.statusCode(), () -> text(done));
      HttpResponse<byte[]> again = send(post(orders, key, "{\"sku\":9}"));
      assertArrayEquals(done.body(), again.body());
      assertTrue(replayed(again));
      assertEquals(before + 1, runs(runs));
      http.expect("executed", 1);
      http.expect("stored", 1);
      http.expect("conflict", 1);
      http.expect("mismatch", 1);
      http.expect("replayed", 1);

      // another route never shares the record
      HttpResponse<byte[]> refund = send(post(app.base() + "/refunds", key, "{\"sku\":9}"));
      assertEquals(201, refund.statusCode(), () -> text(refund));
      assertFalse(replayed(refund), "the same key on another route runs");
      assertEquals(before + 2, runs(runs));
      http.expect("executed", 1);
      http.expect("stored", 1);

      // the records are where the configuration says
      Set<String> records = records();
      if (store.equals("redis")) {
        assertTrue(
            records.stream()
                .anyMatch(r -> recordFor(r).startsWith("POST /orders POST ") && r.endsWith(key)),
            "record of " + key + " in Redis: " + records);
        assertTrue(
            records.stream()
                .anyMatch(r -> recordFor(r).startsWith("POST /refunds POST ") && r.endsWith(key)),
            "a separate record for /refunds: " + records);
      } else {
        assertEquals(Set.of(), records, "the memory store writes nothing to Redis");
      }
      http.assertCounted("JMX IdempotencyOutcomes", jmxOutcomes(app.base()));
      assertAgentHealthy(app, store);
    }
  }

  /**
   * The JVM dies while its handler runs: a new JVM on the same Redis answers the retry 409 while
   * the dead claim's lease lasts, runs it once after, then replays it.
   */
  @Test
  void killedHandlerBlocksItsKeyUntilTheLeaseEndsThenRunsOnce() throws Exception {
    Path runs = runsFile();
    String key = UUID.randomUUID().toString();
    String body = "{\"sku\":11}";
    try (RunningJvm doomed = start("redis", redis, runs)) {
      // never answered: the JVM is killed with the request running
      Future<?> unused = sendAsync(post(doomed.base() + "/orders", key, body, "X-Mode", "hang"));
      awaitRuns(runs, 1);
      long lease = redisTtl(recordOf(key));
      assertTrue(
          lease > 0 && lease <= LEASE.toMillis(),
          "the claim expires with the lease: PTTL " + lease);
      doomed.kill();
    }
    long killedAt = System.nanoTime();
    try (RunningJvm restarted = start("redis", redis, runs)) {
      String record = recordOf(key);
      String startup =
          "new JVM up "
              + (System.nanoTime() - killedAt) / 1_000_000
              + " ms after the kill, "
              + "dead claim PTTL "
              + redisTtl(record)
              + " ms";
      System.out.println("[it] " + startup);
      int conflicts = 0;
      HttpResponse<byte[]> ran = null;
      long deadline = System.nanoTime() + LEASE.toNanos() + TimeUnit.SECONDS.toNanos(10);
      while (ran == null && System.nanoTime() < deadline) {
        long measured = System.nanoTime();
        long ttlBefore = redisTtl(record);
        HttpResponse<byte[]> response = send(post(restarted.base() + "/orders", key, body));
        long answeredMillisLater = (System.nanoTime() - measured) / 1_000_000;
        if (response.statusCode() == 409) {
          conflicts++;
          long retryAfter = Long.parseLong(header(response, "Retry-After"));
          assertTrue(
              retryAfter >= 1 && retryAfter <= LEASE.toSeconds(), "Retry-After " + retryAfter);
          assertTrue(
              ttlBefore > 0, "409 only while the dead claim lives (PTTL before " + ttlBefore + ")");
          Thread.sleep(200);
        } else {
          assertTrue(
              answeredMillisLater + 50 >= ttlBefore,
              "ran only once the lease had ended (PTTL was "
                  + ttlBefore
                  + " ms, answered "
                  + answeredMillisLater
                  + " ms later)");
          long ttlAfter = redisTtl(record);
          assertTrue(
              ttlAfter > LEASE.toMillis(),
              "and its answer is stored for the ttl: PTTL " + ttlAfter);
          ran = response;
        }
      }
      assertNotNull(ran, "the retry ran after the lease");
      HttpResponse<byte[]> done = ran;
      assertEquals(201, done.statusCode(), () -> text(done));
      assertFalse(replayed(done));
      assertTrue(conflicts > 0, "the first retries met the dead claim (" + startup + ")");
      assertEquals(2, runs(runs), "the killed run and one run after the lease");
      HttpResponse<byte[]> replay = send(post(restarted.base() + "/orders", key, body));
      assertEquals(201, replay.statusCode());
      assertArrayEquals(done.body(), replay.body());
      assertTrue(replayed(replay));
      assertEquals(2, runs(runs));
      System.out.println(
          "[it] after the kill: " + conflicts + " x 409, then one run, then replayed");
      assertEquals(conflicts, jmxOutcomes(restarted.base()).get("conflict"));
      assertAgentHealthy(restarted, "redis");
    }
  }

  /**
   * A handler that outlives its lease: a retry after the lease runs and is stored; the first
   * handler's late answer still reaches its client but is fenced out of the record, so replays give
   * the newer answer.
   */
  @Test
  void handlerOutlivingItsLeaseCannotOverwriteTheNewerRecord() throws Exception {
    Path runs = runsFile();
    String key = UUID.randomUUID().toString();
    String body = "{\"sku\":14}";
    try (RunningJvm app = start("redis", redis, runs, "hotkey.idempotency.lease", "2s")) {
      String orders = app.base() + "/orders";
      CompletableFuture<HttpResponse<byte[]>> late =
          sendAsync(post(orders, key, body, "X-Mode", "slow", "X-Sleep", "4000"));
      awaitRuns(runs, 1);
      String record = recordOf(key);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (redisTtl(record) > 0) {
        assertTrue(System.nanoTime() < deadline, "the 2s lease did not end");
        Thread.sleep(50);
      }
      HttpResponse<byte[]> newer = send(post(orders, key, body));
      assertEquals(201, newer.statusCode(), () -> text(newer));
      assertFalse(replayed(newer), "the lease had ended: the retry ran");
      HttpResponse<byte[]> first = late.get(30, TimeUnit.SECONDS);
      assertEquals(201, first.statusCode(), "the first handler's answer still reaches its client");
      assertFalse(Arrays.equals(first.body(), newer.body()));
      HttpResponse<byte[]> replay = send(post(orders, key, body));
      assertTrue(replayed(replay));
      assertArrayEquals(
          newer.body(), replay.body(), "the stale owner did not overwrite the newer record");
      assertEquals(2, runs(runs));
      Map<String, Long> outcomes = jmxOutcomes(app.base());
      assertEquals(1, outcomes.get("fenced_out"), "JMX " + outcomes);
      assertEquals(1, outcomes.get("stored"), "JMX " + outcomes);
      assertAgentLine(
          app,
          "^\\[hotkey\\] warning: .*taken over by a newer claim",
          "the fenced-out answer is logged");
      assertAgentHealthy(app, "redis");
    }
  }

  /**
   * With {@code require-key=true} a configured route without a key gets 400 problem+json and the
   * handler does not run; a request with a key still runs once and is replayed.
   */
  @Test
  void requiredKeyMissingGets400() throws Exception {
    Path runs = runsFile();
    try (RunningJvm app = start("memory", redis, runs, "hotkey.idempotency.require-key", "true")) {
      HttpResponse<byte[]> missing = send(post(app.base() + "/orders", null, "{\"sku\":21}"));
      assertEquals(400, missing.statusCode(), () -> text(missing));
      assertTrue(
          String.valueOf(header(missing, "Content-Type")).startsWith("application/problem+json"),
          () -> "Content-Type " + header(missing, "Content-Type"));
      assertTrue(
          text(missing).contains("Idempotency-Key"),
          () -> "names the missing header: " + text(missing));
      assertEquals(0, runs(runs), "the handler did not run");

      String key = UUID.randomUUID().toString();
      HttpResponse<byte[]> first = send(post(app.base() + "/orders", key, "{\"sku\":21}"));
      assertEquals(201, first.statusCode(), () -> text(first));
      HttpResponse<byte[]> again = send(post(app.base() + "/orders", key, "{\"sku\":21}"));
      assertArrayEquals(first.body(), again.body());
      assertTrue(replayed(again));
      assertEquals(1, runs(runs));
      assertAgentHealthy(app, "memory");
    }
  }

  /**
   * With the redis store, a token issued by one instance is used at another, once: the first
   * instance then replays its answer, and a third session's use of it is refused.
   */
  @Test
  void aTokenIssuedByOneInstanceIsUsedAtAnother() throws Exception {
    Path runs = runsFile();
    try (RunningJvm one = start("redis", redis, runs);
        RunningJvm two = start("redis", redis, runs)) {
      String session = "JSESSIONID=" + UUID.randomUUID();
      IdempotencyOverHttp http =
          new IdempotencyOverHttp("jdk-httpserver/redis", one.base(), "/orders", () -> runs(runs));
      String token = new PlaybookOverHttp("instance one", one.base(), http).issue(session);
      HttpResponse<byte[]> paid =
          send(post(two.base() + "/orders/pay", token, "{\"amount\":3}", "Cookie", session));
      assertEquals(201, paid.statusCode(), () -> text(paid));
      assertFalse(replayed(paid));
      HttpResponse<byte[]> retry =
          send(post(one.base() + "/orders/pay", token, "{\"amount\":3}", "Cookie", session));
      assertTrue(replayed(retry), () -> "the other instance replays: " + text(retry));
      assertArrayEquals(paid.body(), retry.body());
      HttpResponse<byte[]> stranger =
          send(
              post(
                  one.base() + "/orders/pay",
                  token,
                  "{\"amount\":3}",
                  "Cookie",
                  "JSESSIONID=" + UUID.randomUUID()));
      assertEquals(400, stranger.statusCode(), () -> text(stranger));
      assertTrue(text(stranger).contains("token-wrong-caller"), () -> text(stranger));
      assertEquals(1, runs(runs));
      assertAgentHealthy(one, "redis");
      assertAgentHealthy(two, "redis");
    }
  }

  /**
   * A completed request is replayed, byte-identical and marked, by the next JVM on the same Redis.
   */
  @Test
  void replaysSurviveARestart() throws Exception {
    Path runs = runsFile();
    String key = UUID.randomUUID().toString();
    HttpResponse<byte[]> original;
    try (RunningJvm app = start("redis", redis, runs)) {
      original = send(post(app.base() + "/orders", key, "{\"sku\":12}"));
      assertEquals(201, original.statusCode(), () -> text(original));
    }
    try (RunningJvm restarted = start("redis", redis, runs)) {
      HttpResponse<byte[]> replay = send(post(restarted.base() + "/orders", key, "{\"sku\":12}"));
      assertEquals(201, replay.statusCode(), () -> text(replay));
      assertArrayEquals(original.body(), replay.body(), "byte-identical across the restart");
      assertTrue(replayed(replay));
      assertEquals(header(original, "Location"), header(replay, "Location"));
      assertEquals(
          422,
          send(post(restarted.base() + "/orders", key, "{\"sku\":13}")).statusCode(),
          "the fingerprint survived too");
      assertEquals(1, runs(runs), "the handler did not run again");
      assertAgentHealthy(restarted, "redis");
    }
  }

  /**
   * Redis goes down (a real stop of a redis-server with an append-only file) and comes back on the
   * same port: meanwhile requests get 503 problem+json under {@code on-store-failure=reject} and
   * run under {@code allow}, both counted; the store works again within a fraction of a second of
   * Redis' return (no blind second); every record written before the outage is replayed.
   */
  @Test
  void redisOutageRejectsOrPassesThroughAndLosesNoRecord() throws Exception {
    Path runs = runsFile();
    try (RedisServer flaky = RedisServers.startPersistent("idem-outage", List.of());
        RunningJvm reject = start("redis", flaky, runs);
        RunningJvm allow =
            start("redis", flaky, runs, "hotkey.idempotency.on-store-failure", "allow")) {
      Map<String, HttpResponse<byte[]>> before = new LinkedHashMap<>();
      for (int i = 0; i < 4; i++) {
        RunningJvm app = i % 2 == 0 ? reject : allow;
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> response =
            send(post(app.base() + "/orders", key, "{\"n\":" + i + "}"));
        assertEquals(201, response.statusCode(), () -> text(response));
        before.put(key, response);
      }
      assertEquals(4, runs(runs));

      flaky.stop();
      String firstKey = before.keySet().iterator().next();
      for (String key : new String[] {UUID.randomUUID().toString(), firstKey}) {
        HttpResponse<byte[]> refused = send(post(reject.base() + "/orders", key, "{\"n\":0}"));
        assertEquals(503, refused.statusCode(), () -> text(refused));
        assertTrue(
            header(refused, "Content-Type").startsWith("application/problem+json"),
            () -> text(refused));
        assertTrue(text(refused).contains("\"status\":503"), () -> text(refused));
        assertNotNull(header(refused, "Retry-After"), "503 has Retry-After");
      }
      assertEquals(4, runs(runs), "reject: the handler did not run");
      HttpResponse<byte[]> passed =
          send(post(allow.base() + "/orders", UUID.randomUUID().toString(), "{}"));
      assertEquals(201, passed.statusCode(), () -> text(passed));
      assertFalse(replayed(passed));
      assertEquals(5, runs(runs), "allow: the handler ran");
      Map<String, Long> rejected = jmxOutcomes(reject.base());
      Map<String, Long> allowed = jmxOutcomes(allow.base());
      assertEquals(
          2, rejected.get("store_failure"), "reject counts its store failures: " + rejected);
      assertEquals(1, allowed.get("store_failure"), "allow counts its store failures: " + allowed);
      assertEquals(1, allowed.get("passed_through"), "allow: " + allowed);
      for (RunningJvm app : new RunningJvm[] {reject, allow}) {
        assertAgentLine(
            app,
            "^\\[hotkey\\] warning: idempotency store redis://"
                + Pattern.quote(flaky.address())
                + " failed on claim",
            "the store failure is logged");
      }

      flaky.restart();
      // Redis answers again: the agent's background probe (every 50 ms) puts the store back in
      // service at once, with no blind second of 503s
      long back = System.nanoTime();
      HttpResponse<byte[]> recovered = null;
      while (System.nanoTime() - back < TimeUnit.SECONDS.toNanos(15)) {
        recovered = send(post(reject.base() + "/orders", firstKey, "{\"n\":0}"));
        if (recovered.statusCode() != 503) {
          break;
        }
        Thread.sleep(10);
      }
      long recoveredAfter = (System.nanoTime() - back) / 1_000_000;
      HttpResponse<byte[]> answer = recovered;
      assertEquals(201, answer.statusCode(), () -> "after Redis came back: " + text(answer));
      System.out.println("[it] the store answered again " + recoveredAfter + " ms after Redis did");
      assertTrue(
          recoveredAfter < 600,
          "503s for " + recoveredAfter + " ms after Redis answered again: a blind interval");
      Thread.sleep(200); // the allow child's probe, started by its own failure, is as quick
      int i = 0;
      for (Map.Entry<String, HttpResponse<byte[]>> record : before.entrySet()) {
        for (RunningJvm app : new RunningJvm[] {reject, allow}) {
          HttpResponse<byte[]> replay =
              send(post(app.base() + "/orders", record.getKey(), "{\"n\":" + i + "}"));
          assertEquals(201, replay.statusCode(), () -> text(replay));
          assertTrue(replayed(replay), "record written before the outage replayed");
          assertArrayEquals(
              record.getValue().body(), replay.body(), "record written before the outage kept");
        }
        i++;
      }
      assertEquals(5, runs(runs), "no record was lost: nothing ran again");
      assertAgentHealthy(reject, "redis");
      assertAgentHealthy(allow, "redis");
    }
  }

  private static RunningJvm start(String store, RedisServer server, Path runs, String... props) {
    AgentJvm jvm =
        AgentJvm.app("jdk-httpserver-" + store, ItConfig.appClasses().toString(), APP)
            .prop("hotkey.idempotency.routes", ROUTES)
            .prop("hotkey.idempotency.store", store)
            .prop("hotkey.idempotency.redis.uri", "redis://" + server.address())
            .prop("hotkey.idempotency.lease", LEASE.toSeconds() + "s")
            .prop("hotkey.report.interval", "0")
            .args("--runs", runs.toString())
            .timeout(Duration.ofSeconds(40));
    PlaybookOverHttp.PROPERTIES.forEach(jvm::prop);
    for (int i = 0; i < props.length; i += 2) {
      jvm.prop(props[i], props[i + 1]);
    }
    return jvm.start();
  }

  private static Path runsFile() throws Exception {
    return Files.createTempFile(ItConfig.workDir(), "runs-", ".txt");
  }

  private static int runs(Path file) throws Exception {
    return Files.readAllLines(file).size();
  }

  private static void awaitRuns(Path file, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (runs(file) < count) {
      assertTrue(System.nanoTime() < deadline, "the handler did not start within 20s");
      Thread.sleep(20);
    }
  }

  private Set<String> records() {
    try (Jedis jedis = redis.jedis()) {
      return jedis.keys("hotkey:idem:*");
    }
  }

  /** The Redis key of the record for an Idempotency-Key on POST /orders (no Authorization). */
  private String recordOf(String key) {
    return records().stream()
        .filter(r -> recordFor(r).startsWith("POST /orders ") && r.endsWith(" " + key))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no record for " + key + " in " + records()));
  }

  /** The record key a Redis key {@code hotkey:idem:{crc}:<record key>} holds. */
  private static String recordFor(String redisKey) {
    return redisKey.substring(redisKey.indexOf("}:") + 2);
  }

  /** PTTL in ms; -2 once the key is gone. */
  private long redisTtl(String redisKey) {
    try (Jedis jedis = redis.jedis()) {
      return jedis.pttl(redisKey);
    }
  }

  private static void assertAgentHealthy(RunningJvm app, String store) throws InterruptedException {
    assertAgentLine(
        app,
        "^\\[hotkey\\] instrumented sun\\.net\\.httpserver\\.ServerImpl",
        "the JDK server is instrumented");
    assertAgentLine(
        app,
        "^\\[hotkey\\] idempotency: routes="
            + Pattern.quote(ROUTES)
            + " store="
            + (store.equals("memory") ? "memory" : "redis://"),
        "the configured store is in use");
    ChildRun sofar = app.snapshot();
    Check.all(
        sofar,
        "agent lines",
        () -> assertFalse(sofar.stderrContains("internal error"), "no internal error"));
  }

  private static void assertAgentLine(RunningJvm app, String regex, String what)
      throws InterruptedException {
    boolean found = app.awaitAgentLine(regex, Duration.ofSeconds(5));
    ChildRun sofar = app.snapshot();
    Check.all(sofar, what, () -> assertTrue(found, what + ": no agent line matches " + regex));
  }
}
