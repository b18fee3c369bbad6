package io.hotkey.agent.idempotency.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencySettings;
import io.hotkey.agent.idempotency.Outcome;
import io.hotkey.agent.idempotency.RequestHead;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.StoreException;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespConnection;
import io.hotkey.agent.testing.RedisPerClass;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisRecordStoreTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofHours(1);
  private static final byte[] FP_A = fingerprint('a');
  private static final byte[] FP_B = fingerprint('b');
  private static final HttpAnswer ANSWER =
      new HttpAnswer(
          201,
          List.of(
              Map.entry("Content-Type", "application/json"), Map.entry("Location", "/orders/7")),
          "{\"order\":7}".getBytes(StandardCharsets.UTF_8));

  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private RedisRecordStore store;
  private String key;

  @BeforeEach
  void newStore(TestInfo test) {
    store = newStore(Duration.ofSeconds(2));
    key = "POST /orders/** POST scope-" + test.getDisplayName() + " k\u00e9y with spaces";
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static RedisRecordStore newStore(Duration readTimeout) {
    return new RedisRecordStore(
        RedisEndpoint.of("127.0.0.1", redis.port()),
        Duration.ofMillis(500),
        readTimeout,
        4,
        Duration.ofMillis(200));
  }

  private static byte[] fingerprint(char c) {
    byte[] bytes = new byte[32];
    java.util.Arrays.fill(bytes, (byte) c);
    bytes[0] = 0;
    bytes[31] = (byte) 0xff;
    return bytes;
  }

  @Test
  void claimCompleteReplay() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind());
    ClaimResult running = store.claim(key, FP_A, LEASE);
    assertEquals(ClaimResult.Kind.IN_PROGRESS, running.kind());
    assertArrayEquals(FP_A, running.fingerprint());
    assertTrue(
        running.remainingMillis() > 29_000 && running.remainingMillis() <= 30_000,
        "" + running.remainingMillis());
    assertTrue(store.complete(key, claimed.token(), ANSWER, TTL));
    assertTrue(
        store.complete(key, claimed.token(), ANSWER, TTL), "repeating a completion is harmless");
    ClaimResult done = store.claim(key, FP_B, LEASE);
    assertEquals(ClaimResult.Kind.COMPLETED, done.kind());
    assertArrayEquals(FP_A, done.fingerprint());
    assertEquals(ANSWER, done.response());
  }

  @Test
  void releaseFreesTheKeyOnlyForTheOwner() throws Exception {
    ClaimResult first = store.claim(key, FP_A, LEASE);
    assertFalse(store.release(key, first.token() + 1000));
    assertEquals(ClaimResult.Kind.IN_PROGRESS, store.claim(key, FP_A, LEASE).kind());
    assertTrue(store.release(key, first.token()));
    ClaimResult second = store.claim(key, FP_A, LEASE);
    assertEquals(ClaimResult.Kind.CLAIMED, second.kind());
    assertTrue(second.token() > first.token());
    assertTrue(store.complete(key, second.token(), ANSWER, TTL));
    assertFalse(store.release(key, second.token()), "a completed record is never released");
    assertEquals(ClaimResult.Kind.COMPLETED, store.claim(key, FP_A, LEASE).kind());
  }

  @Test
  void anOwnerWhoseLeaseExpiredCannotCompleteOrReleaseTheNewerClaim() throws Exception {
    ClaimResult stale = store.claim(key, FP_A, Duration.ofMillis(150));
    Thread.sleep(300);
    ClaimResult newer = store.claim(key, FP_A, LEASE);
    assertEquals(ClaimResult.Kind.CLAIMED, newer.kind());
    assertTrue(newer.token() > stale.token());
    assertFalse(store.complete(key, stale.token(), ANSWER, TTL));
    assertFalse(store.release(key, stale.token()));
    assertEquals(ClaimResult.Kind.IN_PROGRESS, store.claim(key, FP_A, LEASE).kind());
    HttpAnswer newerAnswer =
        new HttpAnswer(200, List.of(), "newer".getBytes(StandardCharsets.UTF_8));
    assertTrue(store.complete(key, newer.token(), newerAnswer, TTL));
    assertEquals(newerAnswer, store.claim(key, FP_A, LEASE).response());
  }

  @Test
  void completedRecordsExpireAfterTheTtl() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    assertTrue(store.complete(key, claimed.token(), ANSWER, Duration.ofMillis(200)));
    assertEquals(ClaimResult.Kind.COMPLETED, store.claim(key, FP_A, LEASE).kind());
    Thread.sleep(350);
    assertEquals(ClaimResult.Kind.CLAIMED, store.claim(key, FP_A, LEASE).kind());
  }

  @Test
  void recordsSurviveANewStoreInstance() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    store.complete(key, claimed.token(), ANSWER, TTL);
    store.close();
    try (RedisRecordStore restarted = newStore(Duration.ofSeconds(2))) {
      ClaimResult found = restarted.claim(key, FP_A, LEASE);
      assertEquals(ClaimResult.Kind.COMPLETED, found.kind());
      assertEquals(ANSWER, found.response());
    }
  }

  @Test
  void exactlyOneOfManyConcurrentClaimsWins() throws Exception {
    int threads = 64;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<ClaimResult>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(
            pool.submit(
                (Callable<ClaimResult>)
                    () -> {
                      start.await();
                      return store.claim(key, FP_A, LEASE);
                    }));
      }
      start.countDown();
      int won = 0;
      for (Future<ClaimResult> result : results) {
        ClaimResult claim = result.get();
        won += claim.kind() == ClaimResult.Kind.CLAIMED ? 1 : 0;
        if (claim.kind() != ClaimResult.Kind.CLAIMED) {
          assertEquals(ClaimResult.Kind.IN_PROGRESS, claim.kind());
        }
      }
      assertEquals(1, won);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theCompletionEmptiesTheClaimersNonceInTheSameWrite() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    byte[] record = RedisRecordStore.redisKey(key);
    try (RespConnection raw =
        new RespConnection(RedisEndpoint.of("127.0.0.1", redis.port()), 500, 2000)) {
      assertEquals(16, field(raw, record, "o").length, "in progress: the claimer's nonce");
      assertEquals("P", new String(field(raw, record, "s"), StandardCharsets.US_ASCII));
      assertTrue(store.complete(key, claimed.token(), ANSWER, TTL));
      assertEquals(0, field(raw, record, "o").length, "completed: no nonce is kept");
      assertEquals("D", new String(field(raw, record, "s"), StandardCharsets.US_ASCII));
      assertEquals(
          Long.toString(claimed.token()),
          new String(field(raw, record, "t"), StandardCharsets.US_ASCII));
      assertArrayEquals(FP_A, field(raw, record, "f"));
    }
    assertEquals(ANSWER, store.claim(key, FP_A, LEASE).response());
  }

  private static byte[] field(RespConnection raw, byte[] record, String name) throws Exception {
    return (byte[]) raw.call(RespConnection.bytes("HGET"), record, RespConnection.bytes(name));
  }

  @Test
  void tokenDigitsAreAlwaysThree() {
    assertEquals("000", new String(RedisRecordStore.threeDigits(0), StandardCharsets.US_ASCII));
    assertEquals("007", new String(RedisRecordStore.threeDigits(7), StandardCharsets.US_ASCII));
    assertEquals("042", new String(RedisRecordStore.threeDigits(42), StandardCharsets.US_ASCII));
    assertEquals("999", new String(RedisRecordStore.threeDigits(999), StandardCharsets.US_ASCII));
  }

  @Test
  void scriptsAreReloadedAfterScriptFlush() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    try (RespConnection raw =
        new RespConnection(RedisEndpoint.of("127.0.0.1", redis.port()), 500, 2000)) {
      assertEquals("OK", raw.call(RespConnection.bytes("SCRIPT"), RespConnection.bytes("FLUSH")));
    }
    assertTrue(
        store.complete(key, claimed.token(), ANSWER, TTL),
        "EVALSHA got NOSCRIPT, EVAL loaded it again");
    assertEquals(ClaimResult.Kind.COMPLETED, store.claim(key, FP_A, LEASE).kind());
  }

  @Test
  void aHungRedisIsAStoreFailureAndLosesNoRecord() throws Exception {
    RedisRecordStore impatient = newStore(Duration.ofMillis(300));
    try {
      ClaimResult claimed = impatient.claim(key, FP_A, LEASE);
      assertTrue(impatient.complete(key, claimed.token(), ANSWER, TTL));
      redis.process().pause();
      try {
        long start = System.nanoTime();
        StoreException failure =
            assertThrows(StoreException.class, () -> impatient.claim(key, FP_A, LEASE));
        assertTrue(System.nanoTime() - start < 2_000_000_000L, "bounded by the read timeout");
        assertNotNull(failure.getMessage());
        IdempotencyEngine engine = engine(impatient, StoreFailurePolicy.REJECT);
        Decision decision = decide(engine, "k-hung");
        assertEquals(Outcome.STORE_FAILURE, decision.outcome());
        assertEquals(503, decision.answer().status());
        assertEquals(1, engine.meters().storeFailure());
        assertEquals(
            Outcome.PASS, decide(engine(impatient, StoreFailurePolicy.ALLOW), "k-hung").outcome());
      } finally {
        redis.process().resume();
      }
      ClaimResult after = claimOnceBack(impatient);
      assertEquals(
          ClaimResult.Kind.COMPLETED,
          after.kind(),
          "the record written before the outage is still there");
      assertEquals(ANSWER, after.response());
    } finally {
      impatient.close();
    }
  }

  @Test
  void aRedisRestartIsAStoreFailureWhileDownAndPooledConnectionsRecoverAfter() throws Exception {
    ClaimResult claimed = store.claim(key, FP_A, LEASE);
    assertTrue(store.complete(key, claimed.token(), ANSWER, TTL));
    redis.process().kill();
    try {
      assertThrows(StoreException.class, () -> store.claim(key, FP_A, LEASE));
      assertThrows(
          StoreException.class, () -> store.claim(key, FP_A, LEASE), "fails fast while down");
    } finally {
      redis.process().restart();
    }
    ClaimResult after = claimOnceBack(store);
    assertEquals(
        ClaimResult.Kind.COMPLETED,
        after.kind(),
        "the record written before the outage survived it");
    assertEquals(ANSWER, after.response());
  }

  /**
   * Claims {@link #key} as soon as the store works again, which the background probe makes happen
   * within a probe period (200 ms here) of Redis answering, not after a fixed blind interval.
   */
  private ClaimResult claimOnceBack(RedisRecordStore recovering) throws Exception {
    long back = System.nanoTime();
    while (true) {
      try {
        ClaimResult result = recovering.claim(key, FP_A, LEASE);
        long millis = (System.nanoTime() - back) / 1_000_000;
        assertTrue(millis < 1500, "the store worked again " + millis + " ms after Redis did");
        return result;
      } catch (StoreException stillDown) {
        assertTrue(System.nanoTime() - back < 5_000_000_000L, "still down: " + stillDown);
        Thread.sleep(10);
      }
    }
  }

  @Test
  void aTokenIssuedByOneInstanceIsUsedOnceAtAnother() throws Exception {
    String token = "token " + key;
    assertTrue(store.issue(token, "alice", Duration.ofMinutes(10)));
    try (RedisRecordStore other = newStore(Duration.ofSeconds(2))) {
      assertEquals(
          ClaimResult.Kind.WRONG_CALLER, other.claimIssued(token, "bob", FP_A, LEASE).kind());
      ClaimResult used = other.claimIssued(token, "alice", FP_A, LEASE);
      assertEquals(ClaimResult.Kind.CLAIMED, used.kind());
      ClaimResult again = store.claimIssued(token, "alice", FP_A, LEASE);
      assertEquals(ClaimResult.Kind.IN_PROGRESS, again.kind(), "spent: the first use runs");
      assertTrue(other.release(token, used.token()));
      ClaimResult retry = store.claimIssued(token, "alice", FP_A, LEASE);
      assertEquals(ClaimResult.Kind.CLAIMED, retry.kind(), "a released use gives the token back");
      assertTrue(store.complete(token, retry.token(), ANSWER, TTL));
      assertEquals(ANSWER, other.claimIssued(token, "alice", FP_A, LEASE).response());
    }
    assertEquals(
        ClaimResult.Kind.NOT_ISSUED,
        store.claimIssued("token never-issued-" + key, "alice", FP_A, LEASE).kind());
    String expiring = "token expiring " + key;
    assertTrue(store.issue(expiring, "alice", Duration.ofMillis(100)));
    Thread.sleep(250);
    assertEquals(
        ClaimResult.Kind.NOT_ISSUED, store.claimIssued(expiring, "alice", FP_A, LEASE).kind());
  }

  @Test
  void twoHundredConcurrentUsesOfOneTokenAcrossTwoInstancesRunOnce() throws Exception {
    String token = "token " + key;
    assertTrue(store.issue(token, "alice", Duration.ofMinutes(10)));
    int uses = 200;
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try (RedisRecordStore other = newStore(Duration.ofSeconds(2))) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<ClaimResult>> results = new ArrayList<>();
      for (int i = 0; i < uses; i++) {
        RedisRecordStore instance = i % 2 == 0 ? store : other;
        results.add(
            pool.submit(
                (Callable<ClaimResult>)
                    () -> {
                      start.await();
                      return instance.claimIssued(token, "alice", FP_A, LEASE);
                    }));
      }
      start.countDown();
      int won = 0;
      for (Future<ClaimResult> result : results) {
        ClaimResult claim = result.get();
        if (claim.kind() == ClaimResult.Kind.CLAIMED) {
          won++;
        } else {
          assertEquals(ClaimResult.Kind.IN_PROGRESS, claim.kind());
        }
      }
      assertEquals(1, won);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * With the default probe (50 ms), the store answers again well within a second of Redis coming
   * back after an outage it had noticed, where a fixed fail-fast second used to refuse requests.
   */
  @Test
  void noBlindSecondAfterRedisReturns() throws Exception {
    try (RedisRecordStore production =
        new RedisRecordStore(RedisEndpoint.of("127.0.0.1", redis.port()), Duration.ofSeconds(2))) {
      ClaimResult claimed = production.claim(key, FP_A, LEASE);
      assertTrue(production.complete(key, claimed.token(), ANSWER, TTL));
      redis.process().kill();
      try {
        for (int i = 0; i < 20; i++) {
          assertThrows(StoreException.class, () -> production.claim(key, FP_A, LEASE));
          Thread.sleep(60);
        }
      } finally {
        redis.process().restart();
      }
      long back = System.nanoTime();
      long firstSuccess = -1;
      while (firstSuccess < 0) {
        try {
          assertEquals(ClaimResult.Kind.COMPLETED, production.claim(key, FP_A, LEASE).kind());
          firstSuccess = (System.nanoTime() - back) / 1_000_000;
        } catch (StoreException stillDown) {
          assertTrue(System.nanoTime() - back < 5_000_000_000L, "still down: " + stillDown);
          Thread.sleep(5);
        }
      }
      System.out.println("[test] the store worked again " + firstSuccess + " ms after Redis did");
      assertTrue(firstSuccess < 500, firstSuccess + " ms after Redis came back");
    }
  }

  @Test
  void engineOverRedis() throws Exception {
    IdempotencyEngine engine = engine(store, StoreFailurePolicy.REJECT);
    Decision first = decide(engine, "k-engine");
    assertEquals(Outcome.EXECUTE, first.outcome());
    Decision concurrent = decide(engine, "k-engine");
    assertEquals(Outcome.CONFLICT, concurrent.outcome());
    assertEquals("30", concurrent.answer().header("Retry-After"));
    first
        .execution()
        .finish(
            201,
            List.of(Map.entry("Content-Type", "text/plain"), Map.entry("Set-Cookie", "s=1")),
            "created".getBytes(StandardCharsets.UTF_8),
            true);
    Decision replay = decide(engine, "k-engine");
    assertEquals(Outcome.REPLAY, replay.outcome());
    assertEquals("true", replay.answer().header("Idempotent-Replayed"));
    assertEquals(null, replay.answer().header("Set-Cookie"));
    assertArrayEquals("created".getBytes(StandardCharsets.UTF_8), replay.answer().body());
  }

  private static IdempotencyEngine engine(RedisRecordStore recordStore, StoreFailurePolicy policy) {
    return new IdempotencyEngine(
        new IdempotencySettings(
            RouteTable.parse("POST /orders"),
            "Idempotency-Key",
            List.of("Authorization"),
            false,
            TTL,
            LEASE,
            1 << 20,
            policy),
        recordStore);
  }

  private static Decision decide(IdempotencyEngine engine, String idempotencyKey) throws Exception {
    String runKey =
        idempotencyKey
            + "-"
            + ProcessHandle.current().pid()
            + "-"
            + System.identityHashCode(engine);
    RequestHead head =
        new RequestHead() {
          @Override
          public String method() {
            return "POST";
          }

          @Override
          public String path() {
            return "/orders";
          }

          @Override
          public String rawPath() {
            return "/orders";
          }

          @Override
          public String rawQuery() {
            return null;
          }

          @Override
          public List<String> headerValues(String name) {
            return name.equalsIgnoreCase("Idempotency-Key") ? List.of(runKey) : List.of();
          }
        };
    return engine.decide(engine.route("POST", "/orders"), head, limit -> new byte[0]);
  }
}
