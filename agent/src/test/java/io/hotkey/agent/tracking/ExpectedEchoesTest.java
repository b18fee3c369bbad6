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
  void aReportAfterTheWriteInvalidatedIsDropped() {
    expect(HOT).invalidatedLocally();
    assertTrue(echoes.takes(HOT));
    assertEquals(1, echoes.redundant());
    assertFalse(echoes.takes(HOT), "the next report is applied");
    assertEquals(List.of(), applied);
  }

  @Test
  void aReportBeforeTheWriteSettledWaitsAndIsDroppedIfItInvalidates() {
    OwnWriteEcho echo = expect(HOT);
    assertTrue(echoes.takes(HOT));
    echo.invalidatedLocally();
    assertEquals(1, echoes.redundant());
    assertEquals(List.of(), applied);
  }

  @Test
  void aReportBeforeTheWriteSettledIsAppliedIfTheWriteIsCancelled() {
    OwnWriteEcho echo = expect(HOT);
    assertTrue(echoes.takes(HOT));
    echo.cancel();
    assertEquals(List.of("product:42"), applied);
    assertEquals(0, echoes.redundant());
  }

  @Test
  void aReportHeldLongerThanTheBoundIsAppliedAtTheNextReportOrPing() {
    OwnWriteEcho abandoned = expect(HOT);
    assertTrue(echoes.takes(HOT));
    now += TimeUnit.MILLISECONDS.toNanos(ExpectedEchoes.HOLD_MILLIS);
    echoes.expireHeld();
    assertEquals(List.of(), applied, "not before the bound");
    now += 1;
    echoes.expireHeld();
    assertEquals(List.of("product:42"), applied);
    abandoned.invalidatedLocally();
    assertEquals(List.of("product:42"), applied, "settled once");
    assertEquals(0, echoes.redundant());

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
    expect(bytes("other")).invalidatedLocally();
    echoes.clear();
    assertFalse(echoes.takes(bytes("other")));
    held.cancel();
    assertEquals(List.of("product:42"), applied);
  }

  @Test
  void writesOfAKeyInFlightTogetherShareItsNextReportWhichOneInvalidationMakesRedundant() {
    OwnWriteEcho cancelled = expect(HOT);
    OwnWriteEcho invalidated = expect(HOT);
    OwnWriteEcho stillInFlight = expect(HOT);
    assertTrue(echoes.takes(HOT));
    cancelled.cancel();
    assertEquals(List.of(), applied, "another write may still invalidate");
    invalidated.invalidatedLocally();
    assertEquals(1, echoes.redundant());
    stillInFlight.cancel();
    assertEquals(List.of(), applied);
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
    after.invalidatedLocally();
    assertEquals(0, echoes.redundant(), "the held report stands for the write before it");
    before.cancel();
    assertEquals(List.of("product:42"), applied);
    assertTrue(echoes.takes(HOT));
    assertEquals(1, echoes.redundant());
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
    expect(reused).invalidatedLocally();
    reused[0] = 'X';
    assertFalse(echoes.takes(reused));
    assertTrue(echoes.takes(HOT));
  }
}
