package io.hotkey.agent.idempotency;

import static io.hotkey.agent.idempotency.TestEngines.bytes;
import static io.hotkey.agent.idempotency.TestEngines.decide;
import static io.hotkey.agent.idempotency.TestEngines.issueToken;
import static io.hotkey.agent.idempotency.TestEngines.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Server-issued tokens: the endpoint, and the routes that require one. */
class TokenTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final IdempotencyEngine engine =
      TestEngines.engine(new MemoryRecordStore(1 << 20, clock::get));
  private final TestRequests alice = TestRequests.post("/payments").cookie("SESSION=alice");

  private TestRequests pay(String token) {
    return alice.copy().key(token).body("{\"amount\":5}");
  }

  @Test
  void theEndpointIssuesRandomTokensInBodyAndHeader() {
    Decision issued = decide(engine, TestRequests.post("/idempotency-tokens"));
    assertEquals(Outcome.TOKEN_ISSUED, issued.outcome());
    HttpAnswer answer = issued.answer();
    assertEquals(201, answer.status());
    assertEquals("application/json", answer.header("Content-Type"));
    assertEquals("no-store", answer.header("Cache-Control"));
    String token = answer.header("Idempotency-Key");
    assertEquals("{\"token\":\"" + token + "\",\"expiresInSeconds\":600}", text(answer));
    assertTrue(token.matches("[A-Za-z0-9_-]{32}"), token);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      assertTrue(seen.add(issueToken(engine, alice)));
    }
    assertEquals(1001, engine.meters().tokenIssued());
  }

  @Test
  void useReplayAndMismatchFollowTheKeyRules() {
    String token = issueToken(engine, alice);
    Decision first = decide(engine, pay(token));
    assertEquals(Outcome.EXECUTE, first.outcome());
    assertEquals(Outcome.CONFLICT, decide(engine, pay(token)).outcome());
    first.execution().finish(201, List.of(), bytes("paid"), true);
    Decision retry = decide(engine, pay(token));
    assertEquals(Outcome.REPLAY, retry.outcome());
    assertEquals("paid", text(retry.answer()));
    assertEquals(
        Outcome.MISMATCH, decide(engine, alice.copy().key(token).body("{\"amount\":6}")).outcome());
    clock.addAndGet(Duration.ofHours(23).toNanos());
    assertEquals(
        Outcome.REPLAY, decide(engine, pay(token)).outcome(), "a used token lives for the ttl");
  }

  @Test
  void missingMalformedForgedExpiredAndOtherCallersTokensAre400() {
    Decision missing = decide(engine, alice.copy().body("{}"));
    assertEquals(Outcome.TOKEN_MISSING, missing.outcome());
    assertTrue(text(missing.answer()).contains("POST /idempotency-tokens"));

    for (String bad : new String[] {"not-a-token", "x".repeat(31), "*".repeat(32)}) {
      Decision decision = decide(engine, pay(bad));
      assertEquals(Outcome.TOKEN_UNKNOWN, decision.outcome(), bad);
      assertTrue(text(decision.answer()).contains("is not a token this service issues"));
    }
    Decision forged = decide(engine, pay(new Tokens().newToken()));
    assertEquals(Outcome.TOKEN_UNKNOWN, forged.outcome());
    assertTrue(text(forged.answer()).contains("or it expired"), text(forged.answer()));

    String bobs = issueToken(engine, TestRequests.post("/payments").cookie("SESSION=bob"));
    Decision stolen = decide(engine, pay(bobs));
    assertEquals(Outcome.TOKEN_WRONG_CALLER, stolen.outcome());
    assertEquals(400, stolen.answer().status());
    assertTrue(text(stolen.answer()).contains("another caller"), text(stolen.answer()));
    Decision unscoped = decide(engine, TestRequests.post("/payments").key(bobs).body("{}"));
    assertEquals(Outcome.TOKEN_WRONG_CALLER, unscoped.outcome(), "no session is not bob's");

    String expiring = issueToken(engine, alice);
    clock.addAndGet(Duration.ofMinutes(10).plusMillis(1).toNanos());
    assertEquals(Outcome.TOKEN_UNKNOWN, decide(engine, pay(expiring)).outcome());

    String big = issueToken(engine, alice);
    Decision tooLarge = decide(engine, alice.copy().key(big).body("x".repeat(2000)));
    assertEquals(Outcome.BODY_TOO_LARGE, tooLarge.outcome());
    assertEquals(413, tooLarge.answer().status());

    assertEquals(1, engine.meters().tokenMissing());
    assertEquals(5, engine.meters().tokenUnknown());
    assertEquals(2, engine.meters().tokenWrongCaller());
    assertEquals(0, engine.meters().executed(), "none of them ran the handler");
  }

  @Test
  void aFailedUseGivesTheTokenBackForARetry() {
    String token = issueToken(engine, alice);
    decide(engine, pay(token)).execution().fail(ReleaseReason.HANDLER_THREW);
    Decision retry = decide(engine, pay(token));
    assertEquals(Outcome.EXECUTE, retry.outcome());
    retry.execution().finish(503, List.of(), bytes("later"), true);
    assertEquals(Outcome.EXECUTE, decide(engine, pay(token)).outcome());
  }

  @Test
  void twoHundredConcurrentUsesOfOneTokenRunOnce() throws Exception {
    IdempotencyEngine real = TestEngines.engine(new MemoryRecordStore(1 << 20));
    String token = issueToken(real, alice);
    int uses = 200;
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Decision>> decisions = new ArrayList<>();
      for (int i = 0; i < uses; i++) {
        decisions.add(
            pool.submit(
                (Callable<Decision>)
                    () -> {
                      start.await();
                      return decide(real, pay(token));
                    }));
      }
      start.countDown();
      int executed = 0;
      for (Future<Decision> decision : decisions) {
        Outcome outcome = decision.get().outcome();
        assertNotEquals(Outcome.TOKEN_UNKNOWN, outcome);
        executed += outcome == Outcome.EXECUTE ? 1 : 0;
      }
      assertEquals(1, executed);
      assertEquals(uses - 1, real.meters().conflict());
    } finally {
      pool.shutdownNow();
    }
  }
}
