package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** topKeys(100) against exact counting on Zipf streams. */
class ZipfAccuracyTest {

  private static final int DISTINCT = 100_000;
  private static final int ACCESSES = 1_000_000;
  private static final int K = 100;

  @ParameterizedTest(name = "exponent {0}, seed {1}")
  @CsvSource({"1.0, 1", "1.0, 2", "1.2, 3", "1.2, 4"})
  void topHundredMatchesExactCounting(double exponent, long seed) {
    Zipf zipf = new Zipf(DISTINCT, exponent, seed);
    int[] stream = zipf.sample(ACCESSES, seed * 31 + 7);
    int[] exact = new int[DISTINCT];
    for (int i : stream) {
      exact[i]++;
    }

    FakeClock clock = new FakeClock();
    DetectorSettings settings =
        DetectorSettings.of(Duration.ofSeconds(1), 1_000_000, K, Duration.ofSeconds(10)).toBuilder()
            .sampling(1) // the sketch's own error; sampling's is DetectorSamplingTest's
            .build();
    HotKeyDetector detector = new HotKeyDetector(settings, clock, HotKeyListener.NONE);
    for (int i : stream) {
      detector.record(zipf.key(i), zipf.hash(i), false);
    }
    for (int t = 0; t < 2; t++) { // the recorded slot is harvested one tick after it closes
      clock.advance(settings.slot());
      detector.tick();
    }

    List<KeyRate> top = detector.topKeys(K);
    Map<ByteBuffer, Integer> indexOf = new HashMap<>();
    for (int i = 0; i < DISTINCT; i++) {
      indexOf.put(ByteBuffer.wrap(zipf.key(i)), i);
    }
    int[] sorted = exact.clone();
    Arrays.sort(sorted);
    int kth = sorted[DISTINCT - K]; // exact count of the 100th key
    Set<Integer> reported = new HashSet<>();
    int correct = 0;
    long maxError = 0;
    for (KeyRate k : top) {
      int i = indexOf.get(ByteBuffer.wrap(k.key()));
      reported.add(i);
      if (exact[i] >= kth) {
        correct++;
      }
      maxError = Math.max(maxError, Math.abs(exact[i] - k.count()));
    }
    // The true top 100: every key counted strictly more than the 100th, plus enough of the keys
    // tied with it to make 100; any reported tied key stands for one of those.
    int above = 0;
    int foundAbove = 0;
    int reportedTied = 0;
    for (int i = 0; i < DISTINCT; i++) {
      if (exact[i] > kth) {
        above++;
        if (reported.contains(i)) {
          foundAbove++;
        }
      } else if (exact[i] == kth && reported.contains(i)) {
        reportedTied++;
      }
    }
    int found = foundAbove + Math.min(K - above, reportedTied);
    int trueTop = K;
    double precision = (double) correct / K;
    double recall = (double) found / trueTop;
    System.out.printf(
        "zipf %.1f seed %d: precision %.3f recall %.3f (%d/%d) max count error %d, 100th count %d%n",
        exponent, seed, precision, recall, found, trueTop, maxError, kth);
    assertTrue(top.size() == K, "size " + top.size());
    assertTrue(precision >= 0.99, "precision " + precision);
    assertTrue(recall >= 0.99, "recall " + recall);
  }
}
