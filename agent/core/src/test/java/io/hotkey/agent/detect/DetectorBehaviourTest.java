package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Promotion, demotion, cap, read/write mix, sliding window and memory, with a fake clock. */
class DetectorBehaviourTest {

  /** 1s window of 10 slots of 100ms; 100 accesses/s = 10 per slot on average. */
  private static final Duration WINDOW = Duration.ofSeconds(1);

  private static final Duration COOL_DOWN = Duration.ofSeconds(2);

  private FakeClock clock;
  private RecordingListener listener;
  private HotKeyDetector detector;

  @BeforeEach
  void setUp() {
    clock = new FakeClock();
    listener = new RecordingListener();
    detector = detector(3);
  }

  private HotKeyDetector detector(int topK) {
    return new HotKeyDetector(countingEveryAccess(topK, COOL_DOWN), clock, listener);
  }

  /** These tests check exact counts; sampling is {@link DetectorSamplingTest}'s. */
  private static DetectorSettings countingEveryAccess(int topK, Duration coolDown) {
    return DetectorSettings.of(WINDOW, 100, topK, coolDown).toBuilder().sampling(1).build();
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private void record(String key, int reads, int writes) {
    byte[] k = bytes(key);
    int h = KeyHashes.hash(k);
    // Interleave reads and writes like real traffic.
    for (int r = 0, w = 0; r < reads || w < writes; ) {
      if (r < reads) {
        detector.record(k, h, false);
        r++;
      }
      if (w < writes) {
        detector.record(k, h, true);
        w++;
      }
    }
  }

  /** Ends the current slot: advance the clock by one slot and tick. */
  private void tick() {
    clock.advance(detector.settings().slot());
    detector.tick();
  }

  private List<String> hot() {
    return detector.hotKeys().stream().map(KeyRate::keyString).collect(Collectors.toList());
  }

  private KeyRate top(String key) {
    return detector.topKeys(Integer.MAX_VALUE).stream()
        .filter(k -> k.keyString().equals(key))
        .findFirst()
        .orElse(null);
  }

  @Test
  void promotesWhenWindowedRateReachesThreshold() {
    // 20 per 100ms slot = 200/s steady; the window count reaches 100 (= 100/s over 1s) once five
    // slots have been harvested. A slot recorded before tick n is harvested by tick n + 1.
    for (int n = 1; n <= 5; n++) {
      record("hot", 20, 0);
      record("warm", 9, 0); // 90/s steady: never hot
      tick();
      assertTrue(hot().isEmpty(), "tick " + n);
    }
    record("hot", 20, 0);
    record("warm", 9, 0);
    tick();
    assertEquals(List.of("hot"), hot());
    assertEquals(List.of("+hot"), listener.events);
    KeyRate k = detector.hotKeys().get(0);
    assertEquals(100.0, k.ratePerSecond(), 1e-9);
    for (int n = 0; n < 30; n++) {
      record("hot", 20, 0);
      record("warm", 9, 0);
      tick();
    }
    assertEquals(List.of("hot"), hot());
    assertEquals(List.of("+hot"), listener.events, "promoted once, warm never");
    assertEquals(200.0, top("hot").ratePerSecond(), 1e-9);
    assertEquals(90.0, top("warm").ratePerSecond(), 1e-9);
  }

  @Test
  void demotesOnlyAfterCoolDownBelowThreshold() {
    for (int n = 0; n < 15; n++) {
      record("k", 30, 0);
      tick();
    }
    assertEquals(List.of("k"), hot());
    // The key goes quiet. The window (10 slots x 30) drains one slot per tick: the last recorded
    // slot is harvested by the next tick, and the rate drops below 100/s (< 4 slots left) 7 ticks
    // later.
    int ticksUntilBelow = 0;
    while (top("k") != null && top("k").ratePerSecond() >= 100) {
      tick();
      ticksUntilBelow++;
    }
    assertEquals(8, ticksUntilBelow);
    // Below threshold since this tick: still hot for the whole cool-down (2s = 20 slots).
    for (int n = 1; n < 20; n++) {
      tick();
      assertEquals(List.of("k"), hot(), "still cooling down after " + n + " slots");
    }
    tick();
    assertTrue(hot().isEmpty());
    assertEquals(List.of("+k", "-k"), listener.events);
    for (int n = 0; n < 40; n++) {
      tick();
    }
    assertEquals(List.of("+k", "-k"), listener.events, "promoted once, demoted once");
  }

  @Test
  void coolDownRestartsWhenTheKeyHeatsUpAgain() {
    for (int n = 0; n < 12; n++) {
      record("k", 30, 0);
      tick();
    }
    for (int n = 0; n < 20; n++) { // quiet: below threshold for ~1.2s of the 2s cool-down
      tick();
    }
    assertEquals(List.of("k"), hot());
    for (int n = 0; n < 12; n++) { // hot again
      record("k", 30, 0);
      tick();
    }
    for (int n = 0; n < 20; n++) { // would have been demoted had the cool-down not restarted
      tick();
    }
    assertEquals(List.of("k"), hot());
    assertEquals(List.of("+k"), listener.events);
  }

  @Test
  void atMostTopKHotKeysAndTheHighestRatesWin() {
    for (int n = 0; n < 12; n++) {
      record("a", 20, 0);
      record("b", 30, 0);
      record("c", 40, 0);
      record("d", 50, 0);
      record("e", 60, 0);
      tick();
    }
    assertEquals(List.of("e", "d", "c"), hot());
    assertEquals(3, listener.promoted().size());
    // A newcomer hotter than the coldest hot key takes its place.
    for (int n = 0; n < 12; n++) {
      record("a", 20, 0);
      record("b", 30, 0);
      record("c", 40, 0);
      record("d", 50, 0);
      record("e", 60, 0);
      record("f", 100, 0);
      tick();
      assertTrue(detector.hotKeys().size() <= 3);
    }
    assertEquals(List.of("f", "e", "d"), hot());
    assertEquals(List.of("c"), listener.demoted());
    assertEquals(List.of("c", "d", "e", "f"), sorted(listener.promoted()));
  }

  @Test
  void keepsTheReadWriteMixOfAHotKey() {
    for (int n = 0; n < 15; n++) {
      record("mix", 70, 30);
      tick();
    }
    KeyRate k = detector.hotKeys().get(0);
    assertEquals("mix", k.keyString());
    assertEquals(700, k.reads());
    assertEquals(300, k.writes());
    assertEquals(0.7, k.readShare(), 1e-9);
    assertEquals(1000.0, k.ratePerSecond(), 1e-9);
    assertEquals(0.7, listener.promotedRates.get(0).readShare(), 0.05);
  }

  @Test
  void slidingWindowForgetsOldSlots() {
    record("once", 50, 0);
    tick();
    assertEquals(null, top("once"), "not harvested yet: the slot closed at this tick");
    tick();
    assertEquals(50, top("once").count());
    for (int n = 0; n < 9; n++) {
      record("later", 2, 0); // a key seen once per slot is not harvested (see HeavyKeeperTable)
      tick();
      assertEquals(50, top("once").count(), "still in the window after " + (n + 1) + " more slots");
    }
    tick();
    assertEquals(null, top("once"), "out of the window");
    assertEquals(18, top("later").count());
  }

  /**
   * Accesses recorded on a thread that never ticks: its first {@code GROWTH} are counted one by
   * one; once its buffer has grown to {@code CAPACITY}, a full buffer is counted at once, a partial
   * one when the thread records in a later slot, and then in that slot.
   */
  @Test
  void aRecordingThreadsAccessesAreCountedOneByOneThenWhenItsBufferFillsOrTheSlotChanges()
      throws Exception {
    int growth = PendingAccesses.GROWTH;
    int full = PendingAccesses.CAPACITY;
    onOtherThread(() -> record("first-accesses", growth, 0));
    tick();
    tick();
    assertEquals(growth, top("first-accesses").count(), "counted one by one: none waits");
    onOtherThread(() -> record("growing", growth * (full - 1) - growth, 0));
    tick();
    tick();
    onOtherThread(() -> record("full", full, 0));
    onOtherThread(() -> record("partial", full - 1, 0));
    tick();
    tick();
    assertEquals(
        (long) growth * (full - 2),
        top("growing").count(),
        "its last buffer counted in the next slot");
    assertEquals(full, top("full").count(), "a full buffer is counted in the slot it filled in");
    assertEquals(null, top("partial"), "a partial buffer waits for its thread");
    onOtherThread(() -> record("partial", 1, 0));
    tick();
    tick();
    assertEquals(
        full - 1, top("partial").count(), "counted in the later slot; the new access now waits");
    assertEquals(full, top("full").count());
  }

  /** A thread that ends leaves at most one in {@code GROWTH} of its accesses uncounted. */
  @Test
  void anEndedThreadLeavesAtMostOneInGrowthOfItsAccessesUncounted() throws Exception {
    int recorded = 10_000;
    Thread thread = new Thread(() -> record("ended", recorded, 0));
    thread.start();
    thread.join();
    tick();
    tick();
    long counted = top("ended").count();
    assertTrue(
        counted <= recorded && counted >= recorded - PendingAccesses.CAPACITY + 1,
        counted + " of " + recorded);
    assertEquals(1, PendingAccesses.limit(0));
    assertEquals(1, PendingAccesses.limit(PendingAccesses.GROWTH - 1));
    assertEquals(2, PendingAccesses.limit(PendingAccesses.GROWTH));
    assertEquals(PendingAccesses.CAPACITY, PendingAccesses.limit(Integer.MAX_VALUE));
    assertEquals(PendingAccesses.CAPACITY, PendingAccesses.limit(-1), "past 2^31 recorded");
  }

  /** A thread per request, as with virtual threads: each records a few accesses and ends. */
  @Test
  void shortLivedThreadsLoseNoAccess() throws Exception {
    for (int t = 0; t < 40; t++) {
      Thread thread = new Thread(() -> record("per-request", 4, 1));
      thread.start();
      thread.join();
    }
    tick();
    tick();
    assertEquals(200, top("per-request").count());
    assertEquals(40, top("per-request").writes());
  }

  /** Runs {@code recording} on one new thread, the same one for the whole test. */
  private void onOtherThread(Runnable recording) throws Exception {
    if (recorder == null) {
      recorder = Executors.newSingleThreadExecutor();
    }
    recorder.submit(recording).get();
  }

  private ExecutorService recorder;

  @AfterEach
  void stopRecorder() {
    if (recorder != null) {
      recorder.shutdownNow();
    }
  }

  @Test
  void memoryIsFixedWhateverTheNumberOfDistinctKeys() {
    long before = detector.memoryBytes();
    for (int i = 0; i < 1_000_000; i++) {
      byte[] k = bytes("user:" + i + ":profile");
      detector.record(k, KeyHashes.hash(k), (i & 3) == 0);
      if (i % 50_000 == 0) {
        tick();
      }
    }
    tick();
    tick();
    assertEquals(before, detector.memoryBytes());
    assertTrue(detector.topKeys(Integer.MAX_VALUE).size() <= detector.settings().capacity());
    assertTrue(before < 32L << 20, "footprint " + before);
    System.out.println(detector.settings() + " -> " + before + " bytes");
  }

  @Test
  void longKeysAreTrackedByHashLengthAndPrefix() {
    String prefix = "x".repeat(100);
    for (int n = 0; n < 12; n++) {
      record(prefix + "A", 30, 0);
      record(prefix + "B", 20, 0);
      tick();
    }
    List<KeyRate> hot = detector.hotKeys();
    assertEquals(2, hot.size());
    KeyRate a = hot.get(0);
    assertTrue(a.truncated());
    assertEquals(101, a.keyLength());
    assertEquals(detector.settings().keyBytes(), a.key().length);
    byte[] full = bytes(prefix + "A");
    assertTrue(a.matches(full, KeyHashes.hash(full)));
    byte[] other = bytes(prefix + "B");
    assertFalse(a.matches(other, KeyHashes.hash(other)));
    assertEquals(300, a.count());
    assertEquals(200, hot.get(1).count());
  }

  @Test
  void aThrowingListenerDoesNotBreakTicks() {
    HotKeyDetector d =
        new HotKeyDetector(
            countingEveryAccess(3, Duration.ZERO),
            clock,
            new HotKeyListener() {
              @Override
              public void onPromoted(KeyRate k) {
                throw new IllegalStateException("boom");
              }

              @Override
              public void onDemoted(KeyRate k) {
                throw new IllegalStateException("boom");
              }
            });
    byte[] k = bytes("k");
    for (int n = 0; n < 12; n++) {
      for (int i = 0; i < 30; i++) {
        d.record(k, KeyHashes.hash(k), false);
      }
      clock.advance(d.settings().slot());
      d.tick();
    }
    assertEquals(1, d.hotKeys().size());
    for (int n = 0; n < 12; n++) {
      clock.advance(d.settings().slot());
      d.tick();
    }
    assertTrue(d.hotKeys().isEmpty());
  }

  private static List<String> sorted(List<String> l) {
    List<String> c = new ArrayList<>(l);
    Collections.sort(c);
    return c;
  }

  @Test
  void aRaisedThresholdDemotesAfterTheCoolDownAndALowerTopKDemotesTheColdest() {
    for (int n = 0; n < 12; n++) {
      record("a", 30, 0);
      record("b", 20, 0);
      record("c", 15, 0);
      tick();
    }
    assertEquals(List.of("a", "b", "c"), hot());
    detector.retune(100, 1, COOL_DOWN);
    record("a", 30, 0);
    record("b", 20, 0);
    record("c", 15, 0);
    tick();
    assertEquals(List.of("a"), hot(), "top-k 1 keeps the hottest");
    assertEquals(1, detector.settings().topK());
    detector.retune(1000, 3, Duration.ofMillis(300));
    for (int n = 0; n < 5; n++) {
      record("a", 30, 0);
      tick();
    }
    assertEquals(List.of(), hot(), "300/s is below a threshold of 1000 for the cool-down");
    assertEquals(1000, detector.settings().threshold());
    assertEquals(List.of("+a", "+b", "+c", "-c", "-b", "-a"), listener.events);
  }

  @Test
  void aTopKAboveTheWindowsCapacityIsRefusedAndChangesNothing() {
    int capacity = detector.settings().capacity();
    assertThrows(
        IllegalArgumentException.class, () -> detector.retune(50, capacity + 1, COOL_DOWN));
    assertEquals(100, detector.settings().threshold());
    assertEquals(3, detector.settings().topK());
  }

  static final class RecordingListener implements HotKeyListener {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<KeyRate> promotedRates = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onPromoted(KeyRate k) {
      events.add("+" + k.keyString());
      promotedRates.add(k);
    }

    @Override
    public void onDemoted(KeyRate k) {
      events.add("-" + k.keyString());
    }

    List<String> promoted() {
      return events.stream()
          .filter(e -> e.startsWith("+"))
          .map(e -> e.substring(1))
          .collect(Collectors.toList());
    }

    List<String> demoted() {
      return events.stream()
          .filter(e -> e.startsWith("-"))
          .map(e -> e.substring(1))
          .collect(Collectors.toList());
    }
  }
}
