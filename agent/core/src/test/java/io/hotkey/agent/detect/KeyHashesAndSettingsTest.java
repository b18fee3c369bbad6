package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyHashesAndSettingsTest {

  @Test
  void hashIsStableMurmur3() {
    // MurmurHash3_x86_32 reference values for seed 0x9747b28c.
    assertEquals(0x24884cba, KeyHashes.hash("Hello, world!".getBytes(StandardCharsets.UTF_8)));
    assertEquals(
        0x2fa826cd,
        KeyHashes.hash(
            "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8)));
    assertEquals(KeyHashes.hash(new byte[0]), KeyHashes.hash(null));
  }

  @Test
  void hashOfRangeEqualsHashOfCopy() {
    byte[] b = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    for (int off = 0; off < 5; off++) {
      for (int len = 0; off + len <= b.length; len++) {
        assertEquals(
            KeyHashes.hash(Arrays.copyOfRange(b, off, off + len)), KeyHashes.hash(b, off, len));
      }
    }
  }

  @Test
  void hashSpreadsSimilarKeys() {
    Set<Integer> high = new HashSet<>();
    Set<Integer> low = new HashSet<>();
    for (int i = 0; i < 4096; i++) {
      int h = KeyHashes.hash(("user:" + i).getBytes(StandardCharsets.UTF_8));
      high.add(h >>> 22);
      low.add(h & 1023);
    }
    assertTrue(high.size() > 1000, "top 10 bits used " + high.size());
    assertTrue(low.size() > 1000, "low 10 bits used " + low.size());
    assertNotEquals(KeyHashes.hash(new byte[] {1}), KeyHashes.hash(new byte[] {1, 0}));
  }

  @Test
  void defaultsDeriveFromTopK() {
    DetectorSettings s =
        DetectorSettings.of(Duration.ofSeconds(1), 1000, 100, Duration.ofSeconds(10));
    assertEquals(10, s.slots());
    assertEquals(Duration.ofMillis(100), s.slot());
    assertEquals(2048, s.width());
    assertEquals(2, s.depth());
    assertEquals(800, s.capacity());
    assertEquals(16, s.sampling());
    int cpus = Runtime.getRuntime().availableProcessors();
    assertEquals(Math.min(64, DetectorSettings.nextPow2(2 * cpus)), s.stripes());
    assertEquals(64, DetectorSettings.builder().stripes(1000).build().stripes());
    assertEquals(4, DetectorSettings.builder().stripes(3).build().stripes());
  }

  @Test
  void samplingDefaultsToTheSparsestThatCountsFiftyAccessesAtTheThreshold() {
    assertEquals(
        16, DetectorSettings.autoSampling(Duration.ofSeconds(1), 1000)); // 62.5 counted at 1000/s
    assertEquals(1, DetectorSettings.autoSampling(Duration.ofSeconds(1), 99));
    assertEquals(2, DetectorSettings.autoSampling(Duration.ofSeconds(1), 100));
    assertEquals(2, DetectorSettings.autoSampling(Duration.ofMillis(500), 200));
    assertEquals(128, DetectorSettings.autoSampling(Duration.ofSeconds(10), 1000));
    assertEquals(1, DetectorSettings.autoSampling(Duration.ofMillis(10), 1));
    assertEquals(
        DetectorSettings.MAX_SAMPLING,
        DetectorSettings.autoSampling(Duration.ofSeconds(1), Long.MAX_VALUE));
    DetectorSettings every = DetectorSettings.builder().sampling(1).build();
    assertEquals(1, every.sampling());
    assertEquals(
        1,
        every.toBuilder().threshold(1_000_000).build().sampling(),
        "an explicit sampling is kept");
    assertEquals(
        64, DetectorSettings.builder().threshold(1_000_000).sampling(64).build().sampling());
  }

  @Test
  void rejectsBadValues() {
    assertThrows(
        IllegalArgumentException.class,
        () -> DetectorSettings.of(Duration.ZERO, 1, 1, Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class,
        () -> DetectorSettings.of(Duration.ofSeconds(1), 0, 1, Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class,
        () -> DetectorSettings.of(Duration.ofSeconds(1), 1, 0, Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class, () -> DetectorSettings.builder().keyBytes(2000).build());
    assertThrows(IllegalArgumentException.class, () -> DetectorSettings.builder().depth(9).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> DetectorSettings.builder().window(Duration.ofMillis(5)).slots(10).build());
    assertThrows(
        IllegalArgumentException.class, () -> DetectorSettings.builder().sampling(3).build());
    assertThrows(
        IllegalArgumentException.class, () -> DetectorSettings.builder().sampling(-4).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> DetectorSettings.builder().sampling(2 * DetectorSettings.MAX_SAMPLING).build());
  }
}
