package io.hotkey.agent.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.cache.OwnWriteEcho;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which reports of a key an own write's expectation takes, in every order its settling and its
 * report can come in, on a clock the test moves. {@link OwnWriteEchoTest} runs the same against a
 * real server's reports.
 */
class ExpectedEchoesTest {
  private static final byte[] HOT = bytes("product:42");

  private final List<String> applied = new ArrayList<>();
  private long now;
  private final ExpectedEchoes echoes =
      new ExpectedEchoes(key -> applied.add(new String(key, StandardCharsets.UTF_8)), () -> now);

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private OwnWriteEcho expect(byte[] key) {
    return echoes.expect(key, k -> true);
  }

  @Test
  void aReportAfterTheWriteInvalidatedIsAppliedAsItArrives() {
    expect(HOT).invalidatingLocally();
    assertFalse(echoes.takes(HOT), "it may stand for a write applied after the own write");
    assertEquals(0, echoes.held());
  }

  @Test
  void aWriteThatInvalidatedBeforeTheReportLeavesItToTheWritesStillInFlight() {
    OwnWriteEcho answered = expect(HOT);
    OwnWriteEcho inFlight = expect(HOT);
    answered.invalidatingLocally();
    assertTrue(echoes.takes(HOT));
    assertEquals(List.of(), applied, "held");
    inFlight.invalidatingLocally();
    assertEquals(1, echoes.held());
    assertEquals(List.of("product:42"), applied);
  }

  @Test
  void aReportBeforeTheWriteSettledWaitsAndIsAppliedWithItsInvalidation() {
    OwnWriteEcho echo = expect(HOT);
    assertTrue(echoes.takes(HOT));
    assertEquals(List.of(), applied, "held while the write is in flight");
    echo.invalidatingLocally();
    assertEquals(1, echoes.held());
    assertEquals(List.of("product:42"), applied, "never dropped");
  }

  @Test
  void aReportBeforeTheWriteSettledIsAppliedIfTheWriteIsCancelled() {
    OwnWriteEcho echo = expect(HOT);
    assertTrue(echoes.takes(HOT));
    echo.cancel();
    assertEquals(List.of("product:42"), applied);
    assertEquals(0, echoes.held());
  }

  @Test
  void aReportHeldLongerThanTheBoundIsAppliedAtTheNextReportOrCheck() {
    OwnWriteEcho abandoned = expect(HOT);
    assertTrue(echoes.takes(HOT));
    now += TimeUnit.MILLISECONDS.toNanos(ExpectedEchoes.HOLD_MILLIS);
    echoes.expireHeld();
    assertEquals(List.of(), applied, "not before the bound");
    now += 1;
    echoes.expireHeld();
    assertEquals(List.of("product:42"), applied);
    abandoned.invalidatingLocally();
    assertEquals(List.of("product:42"), applied, "settled once");
    assertEquals(0, echoes.held());

    OwnWriteEcho other = expect(bytes("other"));
    assertTrue(echoes.takes(bytes("other")));
    now += TimeUnit.MILLISECONDS.toNanos(ExpectedEchoes.HOLD_MILLIS) + 1;
    assertFalse(echoes.takes(bytes("cold")));
    assertEquals(List.of("product:42", "other"), applied, "a report of any key checks the bound");
    other.cancel();
    assertEquals(2, applied.size());
  }

  @Test
  void aCancelledExpectationTakesNoReport() {
    expect(HOT).cancel();
    assertFalse(echoes.takes(HOT));
  }

  @Test
  void aClearedExpectationTakesNoReportButAHeldReportStillWaitsForItsWrite() {
    OwnWriteEcho held = expect(HOT);
    assertTrue(echoes.takes(HOT));
    expect(bytes("other"));
    echoes.clear();
    assertFalse(echoes.takes(bytes("other")));
    held.cancel();
    assertEquals(List.of("product:42"), applied);
  }

  @Test
  void writesOfAKeyInFlightTogetherShareItsNextReportWhichTheFirstInvalidationApplies() {
    OwnWriteEcho cancelled = expect(HOT);
    OwnWriteEcho invalidated = expect(HOT);
    OwnWriteEcho stillInFlight = expect(HOT);
    assertTrue(echoes.takes(HOT));
    cancelled.cancel();
    assertEquals(List.of(), applied, "another write may still invalidate");
    invalidated.invalidatingLocally();
    assertEquals(1, echoes.held());
    stillInFlight.cancel();
    assertEquals(List.of("product:42"), applied, "once");
    assertFalse(echoes.takes(HOT), "each write's first report after it was sent was that one");
  }

  @Test
  void aReportHeldForWritesThatAreAllCancelledIsApplied() {
    OwnWriteEcho first = expect(HOT);
    OwnWriteEcho second = expect(HOT);
    assertTrue(echoes.takes(HOT));
    first.cancel();
    second.cancel();
    assertEquals(List.of("product:42"), applied);
  }

  @Test
  void aWriteExpectedAfterAReportWaitsForTheNextOne() {
    OwnWriteEcho before = expect(HOT);
    assertTrue(echoes.takes(HOT));
    OwnWriteEcho after = expect(HOT);
    assertTrue(echoes.takes(HOT));
    after.invalidatingLocally();
    assertEquals(1, echoes.held(), "the second report, held for the later write");
    assertEquals(List.of("product:42"), applied);
    before.cancel();
    assertEquals(
        List.of("product:42", "product:42"), applied, "the first, held for the earlier one");
  }

  @Test
  void onlyCoveredKeysAndABoundedNumber() {
    assertNull(echoes.expect(HOT, k -> false), "not covered");
    for (int i = 0; i < ExpectedEchoes.MAX_WRITES_PER_KEY; i++) {
      assertNotNull(expect(HOT));
    }
    assertNull(expect(HOT), "one write of the key too many");
    for (int i = 1; i < ExpectedEchoes.MAX_KEYS; i++) {
      assertNotNull(expect(bytes("key:" + i)));
    }
    assertNull(expect(bytes("one key too many")));
  }

  @Test
  void settlingTwiceCountsOnce() {
    OwnWriteEcho first = expect(HOT);
    OwnWriteEcho second = expect(HOT);
    assertTrue(echoes.takes(HOT));
    first.cancel();
    first.cancel();
    assertEquals(List.of(), applied, "the second write is still in flight");
    second.cancel();
    assertEquals(List.of("product:42"), applied);
  }

  @Test
  void theKeyIsCopiedSoThatTheApplicationMayReuseItsArray() {
    byte[] reused = bytes("product:42");
    expect(reused);
    reused[0] = 'X';
    assertFalse(echoes.takes(reused));
    assertTrue(echoes.takes(HOT));
  }
}
