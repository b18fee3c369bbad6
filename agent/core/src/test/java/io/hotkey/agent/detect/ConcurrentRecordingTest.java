package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Four recording threads against a ticking detector. */
class ConcurrentRecordingTest {

  @Test
  @Timeout(60)
  void noLostPromotionAndNoExceptionUnderConcurrentRecording() throws Exception {
    FakeClock clock = new FakeClock();
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    HotKeyListener listener =
        new HotKeyListener() {
          @Override
          public void onPromoted(KeyRate k) {
            events.add("+" + k.keyString());
          }

          @Override
          public void onDemoted(KeyRate k) {
            events.add("-" + k.keyString());
          }
        };
    // topK 1: the clearly hot key (a quarter of all traffic) must win against a million cold keys.
    DetectorSettings settings =
        DetectorSettings.builder()
            .window(Duration.ofSeconds(1))
            .threshold(20)
            .topK(1)
            .coolDown(Duration.ofHours(1))
            .stripes(2) // fewer stripes than threads: shared stripes are exercised too
            .build();
    HotKeyDetector detector = new HotKeyDetector(settings, clock, listener);
    byte[] hot = "hot:key".getBytes(StandardCharsets.UTF_8);
    int hotHash = KeyHashes.hash(hot);
    byte[][] cold = new byte[1 << 16][];
    int[] coldHash = new int[cold.length];
    for (int i = 0; i < cold.length; i++) {
      cold[i] = ("cold:" + i).getBytes(StandardCharsets.UTF_8);
      coldHash[i] = KeyHashes.hash(cold[i]);
    }

    int threads = 4;
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(threads);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int t = 0; t < threads; t++) {
      long seed = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                  SplittableRandom random = new SplittableRandom(seed);
                  for (int i = 0; i < 1_000_000; i++) {
                    if ((i & 3) == 0) {
                      detector.record(hot, hotHash, (i & 7) == 0);
                    } else {
                      int c = random.nextInt(cold.length);
                      detector.record(cold[c], coldHash[c], random.nextBoolean());
                    }
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              },
              "recorder-" + t);
      th.setDaemon(true);
      th.start();
    }
    start.countDown();
    int ticks = 0;
    // Half the hot key's accesses are writes. Its read share is checked over the windows that hold
    // enough of them to say so (500: 0.5 +- 0.02), not in the last one, which scheduling may leave
    // nearly empty once the recorders finish. A few windows may be skewed: ticks here come back to
    // back, not a slot apart, so a recorder preempted mid-access can still write into a slot that
    // has been harvested and reset.
    List<Double> readShares = new ArrayList<>();
    while (done.getCount() > 0) {
      clock.advance(settings.slot());
      detector.tick();
      detector.topKeys(10);
      for (KeyRate k : detector.hotKeys()) {
        if (k.keyString().equals("hot:key") && k.count() >= 500) {
          readShares.add(k.readShare());
        }
      }
      ticks++;
    }
    clock.advance(settings.slot());
    detector.tick();
    clock.advance(settings.slot());
    detector.tick();
    assertEquals(null, failure.get());
    assertEquals(List.of("+hot:key"), events, "after " + ticks + " ticks");
    assertEquals(
        List.of("hot:key"),
        detector.hotKeys().stream().map(KeyRate::keyString).collect(Collectors.toList()));
    assertTrue(
        !readShares.isEmpty(), "no window held 500 accesses of the hot key in " + ticks + " ticks");
    double median =
        readShares.stream()
            .mapToDouble(Double::doubleValue)
            .sorted()
            .toArray()[readShares.size() / 2];
    List<Double> skewed =
        readShares.stream()
            .filter(share -> share <= 0.3 || share >= 0.7)
            .collect(Collectors.toList());
    assertTrue(median > 0.45 && median < 0.55, "median read share " + median);
    assertTrue(
        skewed.size() * 10 <= readShares.size(),
        "read shares " + skewed + " in " + readShares.size() + " windows");
  }
}
