package io.hotkey.agent.idempotency.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.testing.Stderr;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the memory store keeps at its bound and drops when records end; time from a moved clock. */
class MemoryRecordStoreTest {
  private static final long BOUND = 40_000;
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofMinutes(10);
  private static final Duration DEDUPE_WINDOW = Duration.ofSeconds(5);
  private static final byte[] FINGERPRINT = new byte[32];
  private static final HttpAnswer ANSWER =
      new HttpAnswer(
          201,
          List.of(Map.entry("Content-Type", "application/json")),
          "{\"id\":1,\"status\":\"created\"}".getBytes(StandardCharsets.UTF_8));

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final MemoryRecordStore store = new MemoryRecordStore(BOUND, clock::get);

  @Test
  void atTheBoundTheOldestRecordsGoAndTheNewestStay() throws Exception {
    List<String> log = Stderr.of(() -> answerAll(store, "key-", 1_000, TTL));
    long kept = store.size();
    assertTrue(kept > 10 && kept < 1_000, "the bound holds some of them: " + kept);
    for (int i = 999; i >= 1_000 - kept; i--) {
      assertEquals(ClaimResult.Kind.COMPLETED, claim("key-" + i).kind(), "key-" + i + " kept");
    }
    assertEquals(kept, store.size(), "and nothing older than them");
    assertEquals(1, log.size(), () -> "said once: " + log);
    assertTrue(log.get(0).contains("memory store is full"), log.get(0));
  }

  @Test
  void aClaimInProgressIsNeverDroppedAtTheBound() throws Exception {
    ClaimResult running = claim("running");
    Stderr.of(() -> answerAll(store, "key-", 1_000, TTL));
    assertEquals(ClaimResult.Kind.IN_PROGRESS, claim("running").kind(), "a duplicate waits");
    assertTrue(store.complete("running", running.token(), ANSWER, TTL), "its answer is stored");
    assertEquals(ClaimResult.Kind.COMPLETED, claim("running").kind());
  }

  @Test
  void atTheBoundTheRecordNearestItsEndGoesFirst() throws Exception {
    long capacity = capacity();
    int early = (int) (capacity * 6 / 10);
    int deduped = (int) (capacity / 4);
    int late = (int) (capacity / 4);
    Stderr.of(
        () -> {
          answerAll(store, "key-", early, TTL);
          answerAll(store, "dedupe-", deduped, DEDUPE_WINDOW);
          answerAll(store, "later-", late, TTL);
        });
    long dropped = early + deduped + late - store.size();
    assertTrue(dropped > 0 && dropped < deduped, "over the bound by a tenth: " + dropped);
    // the dedupe window's records end first, though written after the early ones
    for (int i = 0; i < early; i++) {
      assertEquals(ClaimResult.Kind.COMPLETED, claim("key-" + i).kind(), "key-" + i + " kept");
    }
    for (int i = 0; i < late; i++) {
      assertEquals(ClaimResult.Kind.COMPLETED, claim("later-" + i).kind(), "later-" + i + " kept");
    }
  }

  @Test
  void endedRecordsAreDroppedByLaterWrites() throws Exception {
    answerAll(store, "key-", 60, Duration.ofMinutes(1));
    assertEquals(60, store.size());
    clock.addAndGet(Duration.ofMinutes(2).toNanos());
    assertEquals(60, store.size(), "nothing written yet: nothing dropped");
    answerAll(store, "later-", 20, TTL);
    assertEquals(20, store.size(), "the ended ones are gone");
    assertEquals(ClaimResult.Kind.CLAIMED, claim("key-0").kind(), "and a key of theirs is free");
  }

  @Test
  void concurrentWritersStayWithinTheBoundAndKeepEveryClaim() throws Exception {
    long capacity = capacity();
    int writers = 4;
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      List<Future<Boolean>> completed = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        String prefix = "writer-" + w + "-";
        Callable<Boolean> writer =
            () -> {
              ClaimResult own = store.claim(prefix + "own", FINGERPRINT, LEASE);
              answerAll(store, prefix, 2_000, TTL);
              return store.complete(prefix + "own", own.token(), ANSWER, TTL);
            };
        completed.add(threads.submit(writer));
      }
      Stderr.of(
          () -> {
            for (Future<Boolean> writer : completed) {
              assertTrue(writer.get(), "each writer's own claim was kept to its end");
            }
          });
    } finally {
      threads.shutdownNow();
    }
    assertTrue(
        store.size() <= capacity + writers,
        () -> "at most one record over per writer: " + store.size() + " of " + capacity);
    clock.addAndGet(TTL.plusMinutes(1).toNanos());
    MemoryRecordStore fresh = new MemoryRecordStore(BOUND, clock::get);
    answerAll(store, "after-", 20, TTL);
    answerAll(fresh, "after-", 20, TTL);
    assertEquals(fresh.bytes(), store.bytes(), "the bytes counted are those held");
    assertEquals(fresh.queued(), store.queued(), "and no queue entry is left of the others");
  }

  @Test
  void aReleaseAfterTheLeaseEndedChangesNothing() {
    ClaimResult key = claim("key");
    assertTrue(store.issue("token", "caller", Duration.ofHours(1)));
    ClaimResult token = store.claimIssued("token", "caller", FINGERPRINT, LEASE);
    assertEquals(ClaimResult.Kind.CLAIMED, token.kind());
    clock.addAndGet(LEASE.plusSeconds(1).toNanos());
    assertFalse(store.release("key", key.token()), "the lease is over: nothing to release");
    assertFalse(store.release("token", token.token()), "nor for a token");
    assertEquals(
        ClaimResult.Kind.NOT_ISSUED,
        store.claimIssued("token", "caller", FINGERPRINT, LEASE).kind(),
        "the token is not issued again by a late release");
  }

  @Test
  void theBytesCountedAreThoseOfTheRecordsHeld() {
    MemoryRecordStore mixed = new MemoryRecordStore(1 << 20, clock::get);
    for (int i = 0; i < 300; i++) {
      String token = "token-" + i;
      mixed.issue(token, "caller", Duration.ofHours(1));
      ClaimResult used = mixed.claimIssued(token, "caller", FINGERPRINT, LEASE);
      ClaimResult keyed = mixed.claim("key-" + i, FINGERPRINT, LEASE);
      switch (i % 3) {
        case 0 -> {
          mixed.release(token, used.token());
          mixed.release("key-" + i, keyed.token());
        }
        case 1 -> {
          mixed.complete(token, used.token(), ANSWER, TTL);
          mixed.complete("key-" + i, keyed.token(), ANSWER, DEDUPE_WINDOW);
        }
        default -> {
          // left running until their lease ends
        }
      }
      clock.addAndGet(1_000_000);
    }
    clock.addAndGet(Duration.ofHours(2).toNanos());
    MemoryRecordStore fresh = new MemoryRecordStore(1 << 20, clock::get);
    answerAll(mixed, "after-", 100, TTL);
    answerAll(fresh, "after-", 100, TTL);
    assertEquals(fresh.size(), mixed.size(), "every ended record dropped");
    assertEquals(fresh.bytes(), mixed.bytes(), "and its bytes with it");
    assertEquals(fresh.queued(), mixed.queued(), "and its queue entries");
  }

  @Test
  void anUnusedTokenHoldsNoQueueBehindIt() {
    MemoryRecordStore tokens = new MemoryRecordStore(1 << 30, clock::get);
    assertTrue(tokens.issue("never-used", "caller", Duration.ofHours(1)));
    for (int i = 0; i < 10_000; i++) {
      String token = "token-" + i;
      tokens.issue(token, "caller", Duration.ofHours(1));
      ClaimResult used = tokens.claimIssued(token, "caller", FINGERPRINT, LEASE);
      assertTrue(tokens.complete(token, used.token(), ANSWER, TTL), token);
    }
    assertEquals(10_001, tokens.size());
    // one entry per record held, and a few of the used tokens' issued records behind the unused one
    assertTrue(
        tokens.queued() < tokens.size() + 200,
        () -> tokens.queued() + " queue entries for " + tokens.size() + " records");
  }

  /** How many of {@link #answerAll}'s records the bound holds. */
  private long capacity() throws Exception {
    MemoryRecordStore probe = new MemoryRecordStore(BOUND, clock::get);
    Stderr.of(() -> answerAll(probe, "key-", 1_000, TTL));
    return probe.size();
  }

  private ClaimResult claim(String key) {
    return store.claim(key, FINGERPRINT, LEASE);
  }

  /** Claims and answers {@code count} keys, in order, a millisecond apart. */
  private void answerAll(MemoryRecordStore into, String prefix, int count, Duration ttl) {
    for (int i = 0; i < count; i++) {
      String key = prefix + i;
      ClaimResult claimed = into.claim(key, FINGERPRINT, LEASE);
      assertEquals(ClaimResult.Kind.CLAIMED, claimed.kind(), key);
      assertTrue(into.complete(key, claimed.token(), ANSWER, ttl), key);
      clock.addAndGet(1_000_000);
    }
  }
}
