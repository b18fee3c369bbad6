package io.hotkey.agent.idempotency;

import static io.hotkey.agent.idempotency.TestEngines.bytes;
import static io.hotkey.agent.idempotency.TestEngines.decide;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.agent.idempotency.store.RecordStore;
import io.hotkey.agent.testing.Stderr;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A store call that throws an Error (as a linkage error does when the application's libraries
 * differ from the ones the agent was built for): the engine never hangs the request on it nor
 * refuses it, and never leaves a claim behind that it could release.
 */
class AgentErrorTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final BrokenStore store = new BrokenStore(new MemoryRecordStore(1 << 20, clock::get));
  private final IdempotencyEngine engine = TestEngines.engine(store);

  @Test
  void anErrorOnClaimPassesTheRequestThroughWithOneWarning() throws Exception {
    store.failClaim = true;
    List<String> log =
        Stderr.of(
            () -> {
              for (int i = 0; i < 3; i++) {
                Decision decision =
                    decide(engine, TestRequests.post("/orders").key("k" + i).body("{}"));
                assertEquals(
                    Outcome.PASS, decision.outcome(), "not refused for the agent's defect");
              }
            });
    assertEquals(3, engine.meters().passedThrough());
    assertEquals(0, engine.meters().storeFailure(), "not the store's failure");
    assertEquals(1, log.size(), () -> "one warning a second at most: " + log);
    assertTrue(log.get(0).contains("NoClassDefFoundError"), log.get(0));
  }

  @Test
  void anErrorWhileStoringTheAnswerReleasesTheClaim() throws Exception {
    TestRequests request = TestRequests.post("/orders").key("k").body("{\"sku\":1}");
    Decision first = decide(engine, request);
    assertEquals(Outcome.EXECUTE, first.outcome());
    store.failComplete = true;
    List<String> log =
        Stderr.of(() -> first.execution().finish(201, List.of(), bytes("{\"order\":1}"), true));
    assertTrue(first.execution().ended());
    assertEquals(1, engine.meters().released());
    assertEquals(1, log.size(), () -> "one warning: " + log);
    assertTrue(log.get(0).contains("NoSuchMethodError"), log.get(0));

    store.failComplete = false;
    Decision retry = decide(engine, request);
    assertEquals(Outcome.EXECUTE, retry.outcome(), "the key is free, not in progress");
    retry.execution().finish(201, List.of(), bytes("{\"order\":1}"), true);
    assertEquals(Outcome.REPLAY, decide(engine, request).outcome());
  }

  /** The memory store, throwing the Errors a store built against another library version would. */
  private static final class BrokenStore implements RecordStore {
    private final MemoryRecordStore records;
    volatile boolean failClaim;
    volatile boolean failComplete;

    BrokenStore(MemoryRecordStore records) {
      this.records = records;
    }

    @Override
    public ClaimResult claim(String recordKey, byte[] fingerprint, Duration lease) {
      if (failClaim) {
        throw new NoClassDefFoundError("io/lettuce/core/output/VoidOutput");
      }
      return records.claim(recordKey, fingerprint, lease);
    }

    @Override
    public boolean issue(String recordKey, String scope, Duration ttl) {
      return records.issue(recordKey, scope, ttl);
    }

    @Override
    public ClaimResult claimIssued(
        String recordKey, String scope, byte[] fingerprint, Duration lease) {
      return records.claimIssued(recordKey, scope, fingerprint, lease);
    }

    @Override
    public boolean complete(String recordKey, long token, HttpAnswer response, Duration ttl) {
      if (failComplete) {
        throw new NoSuchMethodError("ServerHttpResponse.getRawStatusCode()");
      }
      return records.complete(recordKey, token, response, ttl);
    }

    @Override
    public boolean release(String recordKey, long token) {
      return records.release(recordKey, token);
    }

    @Override
    public String describe() {
      return "broken";
    }

    @Override
    public void close() {
      records.close();
    }
  }
}
