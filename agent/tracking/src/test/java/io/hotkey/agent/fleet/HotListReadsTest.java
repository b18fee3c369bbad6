package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When a reader reads the fleet's hot lists, window by window (the test numbers the windows; no
 * clock is involved): every window at first, then only when a key not hot doubled here past the
 * count already answered for and twice the floor, and at the latest every {@link
 * HotListReads#refreshWindows} windows.
 */
class HotListReadsTest {
  private static final long FLOOR = 10;
  private static final int REFRESH = HotListReads.MIN_REFRESH_WINDOWS;

  @Test
  void theRefreshComesAboutAsOftenAsAnInstanceIsDrawnWithinBounds() {
    assertEquals(8, HotListReads.refreshWindows(3, 250), "a small fleet: everyone reports");
    assertEquals(8, HotListReads.refreshWindows(2_000, 250), "drawn every 8 windows");
    assertEquals(40, HotListReads.refreshWindows(10_000, 250), "drawn every 40 windows");
    assertEquals(41, HotListReads.refreshWindows(10_001, 250));
    assertEquals(64, HotListReads.refreshWindows(1_000_000, 250), "at most about a minute");
  }

  @Test
  void aLongerRefreshWaitsLonger() {
    HotListReads reads = new HotListReads();
    reads.exchanged(100, true, Map.of("b", 5L), FLOOR, Set.of(), 40);
    for (long window = 101; window < 140; window++) {
      assertFalse(reads.due(window), "window " + window);
      reads.exchanged(window, false, Map.of(), FLOOR, Set.of(), 40);
    }
    assertTrue(reads.due(140), "40 windows after the last read");
  }

  @Test
  void theFirstExchangeReadsAndSteadyCountsReadOnlyAtTheRefresh() {
    HotListReads reads = new HotListReads();
    assertTrue(reads.due(100), "nothing read yet");
    reads.exchanged(100, true, Map.of("a", 30L, "b", 5L), FLOOR, Set.of(), REFRESH);
    // a's 30 is at least twice the floor and no read answered for it yet: the next window reads
    assertTrue(reads.due(101));
    reads.exchanged(101, true, Map.of("a", 35L, "b", 6L), FLOOR, Set.of(), REFRESH);
    for (long window = 102; window < 101 + REFRESH; window++) {
      assertFalse(reads.due(window), "counts within twice what was answered, window " + window);
      reads.exchanged(window, false, Map.of("a", 50L, "b", 19L), FLOOR, Set.of(), REFRESH);
    }
    assertTrue(reads.due(101 + REFRESH), "the refresh bounds the wait");
  }

  @Test
  void aKeyThatDoublesHereIsReadInTheNextWindowWhoseListCoversIt() {
    HotListReads reads = steadyAt(200, Map.of("a", 30L));
    assertFalse(reads.due(202));
    reads.exchanged(202, false, Map.of("a", 30L, "flash", 25L), FLOOR, Set.of(), REFRESH);
    assertTrue(reads.due(203), "a new key at 2.5 x the floor");
    reads.exchanged(203, true, Map.of("a", 30L, "flash", 25L), FLOOR, Set.of("flash"), REFRESH);
    assertFalse(reads.due(204), "the read answered for it: it is hot");

    HotListReads doubling = steadyAt(300, Map.of("a", 30L));
    doubling.exchanged(302, false, Map.of("a", 59L), FLOOR, Set.of(), REFRESH);
    assertFalse(doubling.due(303), "less than twice the 30 answered for");
    doubling.exchanged(303, false, Map.of("a", 60L), FLOOR, Set.of(), REFRESH);
    assertTrue(doubling.due(304), "twice the 30 answered for");
  }

  @Test
  void keysBelowTwiceTheFloorOrAlreadyHotNeverCauseARead() {
    HotListReads reads = steadyAt(400, Map.of("hot", 500L));
    reads.exchanged(402, false, Map.of("hot", 5_000L, "new", 19L), FLOOR, Set.of("hot"), REFRESH);
    assertFalse(reads.due(403), "a new key below twice the floor, and a hot key growing");
  }

  @Test
  void aKeyFlickeringAroundTheFloorIsAnsweredForOnceNotEveryTime() {
    HotListReads reads = steadyAt(500, Map.of());
    reads.exchanged(502, false, Map.of("k", 20L), FLOOR, Set.of(), REFRESH);
    assertTrue(reads.due(503));
    reads.exchanged(503, true, Map.of(), FLOOR, Set.of(), REFRESH);
    assertFalse(reads.due(504));
    reads.exchanged(504, false, Map.of("k", 21L), FLOOR, Set.of(), REFRESH);
    assertFalse(reads.due(505), "20 was answered for in 503: 21 is no news");
  }

  @Test
  void aKeyUnseenForLongerThanTheRefreshIsNewsAgain() {
    HotListReads reads = steadyAt(600, Map.of("k", 20L));
    long window = 602;
    for (; window <= 601 + REFRESH + 1; window++) {
      reads.exchanged(window, reads.due(window), Map.of(), FLOOR, Set.of(), REFRESH);
    }
    reads.exchanged(window, reads.due(window), Map.of("k", 20L), FLOOR, Set.of(), REFRESH);
    assertTrue(reads.due(window + 1), "k was forgotten: 20 is twice the floor again");
  }

  /** A reader that read in {@code window} and {@code window + 1} with {@code counts} both times. */
  private static HotListReads steadyAt(long window, Map<String, Long> counts) {
    HotListReads reads = new HotListReads();
    reads.exchanged(window, true, counts, FLOOR, Set.of(), REFRESH);
    reads.exchanged(window + 1, true, counts, FLOOR, Set.of(), REFRESH);
    return reads;
  }
}
