package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SlotHarvestTest {

  private final DetectorSettings settings =
      DetectorSettings.builder().stripes(1).sampling(1).build();
  private final StripedSketch sketch = new StripedSketch(settings);
  private final SlotHarvest harvest = new SlotHarvest(settings);

  /** An idle application's harvest reads no bucket; a table counted into is read whole. */
  @Test
  void aTableNothingWasCountedIntoSinceItsLastHarvestIsNotRead() {
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    for (int n = 0; n < 3; n++) {
      sketch.record(key, KeyHashes.hash(key), false);
    }
    sketch.retire();
    int retired = sketch.retire();
    HeavyKeeperTable table = sketch.table(0, retired);
    assertEquals(-1, table.countedMask, "counted into");

    table.countedMask = 0;
    harvest.collect(sketch, retired);
    assertEquals(0, harvest.size(), "a table marked as not counted into is not read");

    table.countedMask = -1;
    harvest.collect(sketch, retired);
    assertEquals(1, harvest.size());
    assertEquals(3, harvest.count(0));
    assertEquals(0, table.countedMask, "harvested: not read again until counted into");

    harvest.collect(sketch, retired);
    assertEquals(0, harvest.size());
  }
}
