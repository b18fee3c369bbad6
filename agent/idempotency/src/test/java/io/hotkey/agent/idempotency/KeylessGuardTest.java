package io.hotkey.agent.idempotency;

import static io.hotkey.agent.idempotency.TestEngines.bytes;
import static io.hotkey.agent.idempotency.TestEngines.decide;
import static io.hotkey.agent.idempotency.TestEngines.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The keyless duplicate-submit guard of {@code dedupe-routes}. */
class KeylessGuardTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final IdempotencyEngine engine =
      TestEngines.engine(new MemoryRecordStore(1 << 20, clock::get));

  private static TestRequests checkout(String body) {
    return TestRequests.post("/checkout").cookie("JSESSIONID=s1").body(body);
  }

  @Test
  void aDuplicateInsideTheWindowIsAnsweredAndOneAfterItRuns() {
    Decision first = decide(engine, checkout("{\"cart\":1}"));
    assertEquals(Outcome.EXECUTE, first.outcome());
    Decision running = decide(engine, checkout("{\"cart\":1}"));
    assertEquals(Outcome.CONFLICT, running.outcome());
    assertEquals(409, running.answer().status());
    assertEquals("30", running.answer().header("Retry-After"));
    assertTrue(text(running.answer()).contains("identical request"), text(running.answer()));
    clock.addAndGet(Duration.ofSeconds(10).toNanos()); // a slow handler: longer than the window
    first
        .execution()
        .finish(201, List.of(Map.entry("Location", "/orders/9")), bytes("order 9"), true);

    clock.addAndGet(Duration.ofMillis(4_900).toNanos());
    Decision duplicate = decide(engine, checkout("{\"cart\":1}"));
    assertEquals(Outcome.DEDUPLICATED, duplicate.outcome());
    assertEquals(201, duplicate.answer().status());
    assertEquals("order 9", text(duplicate.answer()));
    assertEquals("true", duplicate.answer().header("Idempotent-Replayed"));
    assertEquals("/orders/9", duplicate.answer().header("Location"));

    clock.addAndGet(Duration.ofMillis(200).toNanos());
    assertEquals(
        Outcome.EXECUTE,
        decide(engine, checkout("{\"cart\":1}")).outcome(),
        "the window runs from the answer: 5.1 s after it, the same submit runs again");
    assertEquals(1, engine.meters().deduplicated());
    assertEquals(1, engine.meters().conflict());
    assertEquals(2, engine.meters().executed());
  }

  @Test
  void anotherBodyQueryMethodOrCallerRuns() {
    decide(engine, checkout("a")).execution().finish(200, List.of(), bytes("a"), true);
    TestRequests[] others = {
      checkout("b"),
      TestRequests.post("/checkout?step=2").cookie("JSESSIONID=s1").body("a"),
      TestRequests.post("/checkout").cookie("JSESSIONID=s2").body("a"),
      TestRequests.post("/checkout").principal("carol").cookie("JSESSIONID=s1").body("a"),
    };
    for (TestRequests other : others) {
      assertEquals(Outcome.EXECUTE, decide(engine, other).outcome(), other.rawQuery());
    }
    assertEquals(Outcome.DEDUPLICATED, decide(engine, checkout("a")).outcome());
  }

  @Test
  void aRequestWithAKeyOnADedupeRouteFollowsTheKeyRules() {
    Decision keyed = decide(engine, checkout("a").key("k1"));
    assertEquals(Outcome.EXECUTE, keyed.outcome());
    keyed.execution().finish(201, List.of(), bytes("keyed"), true);
    assertEquals(
        Outcome.EXECUTE, decide(engine, checkout("a")).outcome(), "the keyless guard is apart");
    clock.addAndGet(Duration.ofMinutes(5).toNanos());
    Decision retry = decide(engine, checkout("a").key("k1"));
    assertEquals(Outcome.REPLAY, retry.outcome(), "a key's answer lives for the ttl");
    assertEquals(Outcome.MISMATCH, decide(engine, checkout("b").key("k1")).outcome());
  }

  @Test
  void failuresReleaseTheGuardAndOversizedBodiesPassThrough() {
    decide(engine, checkout("x")).execution().finish(500, List.of(), bytes("boom"), true);
    assertEquals(Outcome.EXECUTE, decide(engine, checkout("x")).outcome());
    assertEquals(Outcome.PASS, decide(engine, checkout("y".repeat(2000))).outcome());
    assertEquals(1, engine.meters().bodyTooLarge());
  }

  @Test
  void twoHundredConcurrentIdenticalSubmitsRunOnce() throws Exception {
    IdempotencyEngine real = TestEngines.engine(new MemoryRecordStore(1 << 20));
    int submits = 200;
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Decision>> decisions = new ArrayList<>();
      for (int i = 0; i < submits; i++) {
        decisions.add(
            pool.submit(
                (Callable<Decision>)
                    () -> {
                      start.await();
                      return decide(real, checkout("{\"cart\":7}"));
                    }));
      }
      start.countDown();
      int executed = 0;
      for (Future<Decision> decision : decisions) {
        Outcome outcome = decision.get().outcome();
        assertTrue(outcome == Outcome.EXECUTE || outcome == Outcome.CONFLICT, outcome.name());
        executed += outcome == Outcome.EXECUTE ? 1 : 0;
      }
      assertEquals(1, executed);
      assertEquals(submits - 1, real.meters().conflict());
    } finally {
      pool.shutdownNow();
    }
  }
}
