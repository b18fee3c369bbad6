package io.hotkey.agent.idempotency;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.idempotency.store.StoreException;
import io.hotkey.agent.testing.Stderr;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdempotencyEngineTest {
  private static final List<Map.Entry<String, String>> HEADERS =
      List.of(
          Map.entry("Content-Type", "application/json"),
          Map.entry("Location", "/orders/1"),
          Map.entry("Set-Cookie", "session=secret"),
          Map.entry("Authorization", "Bearer x"),
          Map.entry("Connection", "keep-alive"),
          Map.entry("Transfer-Encoding", "chunked"),
          Map.entry("X-Request-Id", "r-1"),
          Map.entry("ETag", "\"v1\""),
          Map.entry("Content-Length", "13"));

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final MemoryRecordStore store = new MemoryRecordStore(1 << 20, clock::get);

  private IdempotencyEngine engine(
      boolean requireKey, StoreFailurePolicy policy, RecordStore recordStore) {
    return new IdempotencyEngine(
        new IdempotencySettings(
            RouteTable.parse("POST /orders/**, * /payments/*"),
            "Idempotency-Key",
            List.of("Authorization", "X-Tenant"),
            requireKey,
            Duration.ofHours(24),
            Duration.ofSeconds(30),
            1024,
            policy),
        recordStore);
  }

  private IdempotencyEngine engine() {
    return engine(false, StoreFailurePolicy.REJECT, store);
  }

  private static Decision decide(IdempotencyEngine engine, TestRequests request) {
    try {
      var route = engine.route(request.method(), request.path());
      assertNotNull(route, "route for " + request.path());
      return engine.decide(
          route, request, limit -> request.body.length > limit ? null : request.body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private void advance(Duration duration) {
    clock.addAndGet(duration.toNanos());
  }

  @Test
  void firstRequestExecutesAndRetriesReplayWithoutCredentialsOrHopByHopHeaders() {
    IdempotencyEngine engine = engine();
    TestRequests request =
        TestRequests.post("/orders")
            .key("k1")
            .header("Authorization", "Bearer a")
            .body("{\"sku\":1}");
    Decision first = decide(engine, request);
    assertEquals(Outcome.EXECUTE, first.outcome());
    first.execution().finish(201, HEADERS, bytes("{\"order\":42}"), true);

    Decision retry = decide(engine, request);
    assertEquals(Outcome.REPLAY, retry.outcome());
    HttpAnswer replay = retry.answer();
    assertEquals(201, replay.status());
    assertArrayEquals(bytes("{\"order\":42}"), replay.body());
    assertEquals("true", replay.header("Idempotent-Replayed"));
    assertEquals("application/json", replay.header("Content-Type"));
    assertEquals("/orders/1", replay.header("Location"));
    assertEquals("\"v1\"", replay.header("ETag"));
    for (String never :
        new String[] {
          "Set-Cookie",
          "Authorization",
          "Connection",
          "Transfer-Encoding",
          "X-Request-Id",
          "Content-Length"
        }) {
      assertNull(replay.header(never), never);
    }
    assertEquals(1, engine.meters().executed());
    assertEquals(1, engine.meters().replayed());
    assertEquals(1, engine.meters().stored());
  }

  @Test
  void sfStringAndBareTokenAreTheSameKey() {
    IdempotencyEngine engine = engine();
    Decision first = decide(engine, TestRequests.post("/orders").key("\"abc\""));
    first.execution().finish(200, List.of(), bytes("ok"), true);
    assertEquals(Outcome.REPLAY, decide(engine, TestRequests.post("/orders").key("abc")).outcome());
  }

  @Test
  void concurrentDuplicateGets409WithSecondsLeftOnTheLease() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("k").body("x");
    Decision first = decide(engine, request);
    assertEquals(Outcome.EXECUTE, first.outcome());
    advance(Duration.ofMillis(10_500));
    Decision second = decide(engine, request);
    assertEquals(Outcome.CONFLICT, second.outcome());
    assertEquals(409, second.answer().status());
    assertEquals("20", second.answer().header("Retry-After"));
    assertEquals("application/problem+json", second.answer().header("Content-Type"));
    advance(Duration.ofMillis(19_400));
    assertEquals(
        "1", decide(engine, request).answer().header("Retry-After"), "never below one second");
    assertEquals(2, engine.meters().conflict());
  }

  @Test
  void keyReusedWithAnotherPayloadGets422WhileRunningAndAfterwards() {
    IdempotencyEngine engine = engine();
    Decision first = decide(engine, TestRequests.post("/orders").key("k").body("a"));
    Decision whileRunning = decide(engine, TestRequests.post("/orders").key("k").body("b"));
    assertEquals(Outcome.MISMATCH, whileRunning.outcome());
    assertEquals(422, whileRunning.answer().status());
    first.execution().finish(201, List.of(), bytes("done"), true);
    assertEquals(
        Outcome.MISMATCH,
        decide(engine, TestRequests.post("/orders").key("k").body("b")).outcome());
    assertEquals(
        Outcome.MISMATCH,
        decide(engine, TestRequests.post("/orders?x=1").key("k").body("a")).outcome());
    assertEquals(
        Outcome.MISMATCH,
        decide(engine, TestRequests.post("/orders/").key("k").body("a")).outcome(),
        "another raw path of the same route is another request");
    assertEquals(
        Outcome.REPLAY, decide(engine, TestRequests.post("/orders").key("k").body("a")).outcome());
    assertEquals(4, engine.meters().mismatch());
  }

  @Test
  void missingKeyPassesThroughOrGets400ProblemWhenRequired() {
    assertEquals(Outcome.PASS, decide(engine(), TestRequests.post("/orders")).outcome());
    IdempotencyEngine strict = engine(true, StoreFailurePolicy.REJECT, store);
    Decision missing = decide(strict, TestRequests.post("/orders"));
    assertEquals(Outcome.MISSING_KEY, missing.outcome());
    HttpAnswer answer = missing.answer();
    assertEquals(400, answer.status());
    assertEquals("application/problem+json", answer.header("Content-Type"));
    String json = new String(answer.body(), StandardCharsets.UTF_8);
    assertTrue(
        json.startsWith("{\"type\":\"urn:hotkey:problem:idempotency:missing-key\",\"title\":"),
        json);
    assertTrue(json.contains("\"status\":400") && json.contains("\"detail\":\""), json);
    assertEquals(1, strict.meters().missingKey());
  }

  @Test
  void reloadedRoutesAndRequireKeyApplyToTheNextRequest() {
    IdempotencyEngine engine = engine();
    assertNull(engine.route("POST", "/carts/1"));
    engine.retune(RouteTable.parse("POST /carts/*"), true);
    assertNull(engine.route("POST", "/orders"), "the old route is gone");
    assertEquals(Outcome.MISSING_KEY, decide(engine, TestRequests.post("/carts/1")).outcome());
    assertEquals(List.of("Authorization", "X-Tenant"), engine.settings().scopeHeaders, "kept");
  }

  @Test
  void invalidKeysGet400() {
    IdempotencyEngine engine = engine();
    for (String bad :
        new String[] {"", "x".repeat(256), "a b", "\"unterminated", "\u00e9t\u00e9"}) {
      Decision decision = decide(engine, TestRequests.post("/orders").key(bad));
      assertEquals(Outcome.INVALID_KEY, decision.outcome(), bad);
      assertEquals(400, decision.answer().status());
    }
    assertEquals(
        Outcome.INVALID_KEY,
        decide(engine, TestRequests.post("/orders").key("a").key("b")).outcome());
    assertEquals(6, engine.meters().invalidKey());
  }

  @Test
  void routesMethodsCallersAndKeysNeverShareARecord() {
    IdempotencyEngine engine = engine();
    Decision first =
        decide(
            engine, TestRequests.post("/orders").key("k").header("Authorization", "Bearer alice"));
    first.execution().finish(201, List.of(), bytes("alice's order"), true);

    TestRequests[] others = {
      TestRequests.post("/orders").key("k").header("Authorization", "Bearer bob"),
      TestRequests.post("/orders").key("k"),
      TestRequests.post("/orders")
          .key("k")
          .header("Authorization", "Bearer alice")
          .header("X-Tenant", "t2"),
      TestRequests.post("/orders").key("k2").header("Authorization", "Bearer alice"),
      TestRequests.post("/payments/1").key("k").header("Authorization", "Bearer alice"),
      TestRequests.of("PUT", "/payments/1").key("k").header("Authorization", "Bearer alice"),
    };
    for (TestRequests other : others) {
      Decision decision = decide(engine, other);
      assertEquals(Outcome.EXECUTE, decision.outcome());
      decision.execution().finish(200, List.of(), bytes("other"), true);
    }
    // multi-valued scope header: the joined value scopes the caller
    Decision alice =
        decide(
            engine, TestRequests.post("/orders").key("k").header("Authorization", "Bearer alice"));
    assertArrayEquals(bytes("alice's order"), alice.answer().body());
  }

  @Test
  void serverErrorsExceptionsAndTransientStatusesReleaseTheClaim() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("k");
    decide(engine, request).execution().finish(500, List.of(), bytes("boom"), true);
    Decision afterError = decide(engine, request);
    assertEquals(Outcome.EXECUTE, afterError.outcome());
    afterError.execution().fail(ReleaseReason.HANDLER_THREW);
    Decision afterException = decide(engine, request);
    assertEquals(Outcome.EXECUTE, afterException.outcome());
    afterException.execution().finish(429, List.of(), bytes("slow down"), true);
    Decision afterThrottle = decide(engine, request);
    assertEquals(Outcome.EXECUTE, afterThrottle.outcome());
    afterThrottle
        .execution()
        .finish(404, List.of(Map.entry("Content-Type", "text/plain")), bytes("no such sku"), true);
    Decision replay = decide(engine, request);
    assertEquals(Outcome.REPLAY, replay.outcome());
    assertEquals(404, replay.answer().status(), "4xx answers are stored");
    assertEquals(3, engine.meters().released());
  }

  @Test
  void aClaimReleasedWithoutAnAnswerIsLoggedWithItsReasonAtMostOnceASecondEach() throws Exception {
    IdempotencyEngine engine = engine();
    long started = System.nanoTime();
    List<String> lines =
        Stderr.of(
            () -> {
              for (int i = 0; i < 100; i++) {
                decide(engine, TestRequests.post("/orders").key("threw-" + i))
                    .execution()
                    .fail(ReleaseReason.HANDLER_THREW);
              }
              decide(engine, TestRequests.post("/orders").key("timed-out"))
                  .execution()
                  .fail(ReleaseReason.ASYNC_TIMEOUT);
            });
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    String threw =
        "[hotkey] idempotency claim released without an answer: the handler threw;"
            + " a retry with its key runs the request again";
    long threwLines = lines.stream().filter(threw::equals).count();
    assertTrue(
        threwLines >= 1 && threwLines <= 1 + seconds,
        () -> threwLines + " lines in " + seconds + " s: " + lines);
    assertTrue(
        lines.contains(
            "[hotkey] idempotency claim released without an answer: the async request timed out;"
                + " a retry with its key runs the request again"),
        () -> "another reason has its own limit: " + lines);
    assertEquals(threwLines + 1, lines.size(), () -> "nothing else: " + lines);
    assertEquals(101, engine.meters().released());
    assertEquals(
        Outcome.EXECUTE,
        decide(engine, TestRequests.post("/orders").key("threw-7")).outcome(),
        "the claim was released");
  }

  @Test
  void responsesThatCannotBeCapturedWholeAreNotStored() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("big");
    decide(engine, request).execution().finish(200, List.of(), new byte[1025], true);
    Decision afterTooBig = decide(engine, request);
    assertEquals(Outcome.EXECUTE, afterTooBig.outcome());
    afterTooBig.execution().finish(200, List.of(), bytes("partial"), false);
    assertEquals(Outcome.EXECUTE, decide(engine, request).outcome());
    assertEquals(2, engine.meters().notStored());
  }

  @Test
  void requestBodyLargerThanMaxBodyPassesThrough() {
    IdempotencyEngine engine = engine();
    Decision decision =
        decide(engine, TestRequests.post("/orders").key("k").body("x".repeat(2000)));
    assertEquals(Outcome.PASS, decision.outcome());
    assertEquals(1, engine.meters().bodyTooLarge());
  }

  @Test
  void anOwnerWhoseLeaseExpiredCannotOverwriteTheNewerClaim() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("k");
    Decision stale = decide(engine, request);
    advance(Duration.ofSeconds(31));
    Decision newer = decide(engine, request);
    assertEquals(Outcome.EXECUTE, newer.outcome(), "an expired lease frees the key");
    assertTrue(newer.execution().token() > stale.execution().token());
    stale.execution().finish(201, List.of(), bytes("stale"), true);
    assertEquals(
        Outcome.CONFLICT,
        decide(engine, request).outcome(),
        "the stale owner did not complete the record");
    stale.execution().fail(ReleaseReason.HANDLER_THREW);
    newer.execution().finish(201, List.of(), bytes("newer"), true);
    assertArrayEquals(bytes("newer"), decide(engine, request).answer().body());
    assertEquals(1, engine.meters().fencedOut());
  }

  @Test
  void completedRecordsExpireAfterTheTtl() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("k");
    decide(engine, request).execution().finish(200, List.of(), bytes("ok"), true);
    advance(Duration.ofHours(23));
    assertEquals(Outcome.REPLAY, decide(engine, request).outcome());
    advance(Duration.ofHours(2));
    assertEquals(Outcome.EXECUTE, decide(engine, request).outcome());
  }

  @Test
  void storeFailureRejectsWith503OrPassesThroughAndIsCounted() {
    RecordStore broken =
        new RecordStore() {
          @Override
          public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease)
              throws StoreException {
            throw new StoreException("connection refused");
          }

          @Override
          public boolean issue(String recordKey, String scope, Duration ttl) throws StoreException {
            throw new StoreException("connection refused");
          }

          @Override
          public ClaimResult claimIssued(
              String recordKey, String scope, byte[] fingerprint, Duration lease)
              throws StoreException {
            throw new StoreException("connection refused");
          }

          @Override
          public boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl)
              throws StoreException {
            throw new StoreException("connection refused");
          }

          @Override
          public boolean release(String recordKey, long token) throws StoreException {
            throw new StoreException("connection refused");
          }

          @Override
          public String describe() {
            return "broken";
          }

          @Override
          public void close() {}
        };
    IdempotencyEngine reject = engine(false, StoreFailurePolicy.REJECT, broken);
    Decision rejected = decide(reject, TestRequests.post("/orders").key("k"));
    assertEquals(Outcome.STORE_FAILURE, rejected.outcome());
    assertEquals(503, rejected.answer().status());
    assertEquals("1", rejected.answer().header("Retry-After"));
    assertEquals("application/problem+json", rejected.answer().header("Content-Type"));
    assertEquals(1, reject.meters().storeFailure());

    IdempotencyEngine allow = engine(false, StoreFailurePolicy.ALLOW, broken);
    assertEquals(Outcome.PASS, decide(allow, TestRequests.post("/orders").key("k")).outcome());
    assertEquals(1, allow.meters().storeFailure());
    assertEquals(1, allow.meters().passedThrough());
  }

  @Test
  void endingAnExecutionTwiceHasNoEffect() {
    IdempotencyEngine engine = engine();
    TestRequests request = TestRequests.post("/orders").key("k");
    Decision first = decide(engine, request);
    first.execution().finish(200, List.of(), bytes("one"), true);
    first.execution().fail(ReleaseReason.HANDLER_THREW);
    first.execution().finish(200, List.of(), bytes("two"), true);
    assertArrayEquals(bytes("one"), decide(engine, request).answer().body());
    assertFalse(engine.meters().released() > 0);
  }

  @Test
  void statusPolicy() {
    assertTrue(IdempotencyEngine.isStored(200));
    assertTrue(IdempotencyEngine.isStored(303));
    assertTrue(IdempotencyEngine.isStored(409));
    assertFalse(IdempotencyEngine.isStored(408));
    assertFalse(IdempotencyEngine.isStored(429));
    assertFalse(IdempotencyEngine.isStored(500));
    assertFalse(IdempotencyEngine.isStored(503));
    assertFalse(IdempotencyEngine.isStored(101));
  }
}
