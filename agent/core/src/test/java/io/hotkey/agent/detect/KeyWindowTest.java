package io.hotkey.agent.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Which window entries a key takes, and how far the tick's loops over them reach. */
class KeyWindowTest {

  private final DetectorSettings settings =
      DetectorSettings.builder().stripes(1).sampling(1).build();
  private final StripedSketch sketch = new StripedSketch(settings);
  private final SlotHarvest harvest = new SlotHarvest(settings);
  private final KeyWindow window = new KeyWindow(settings, harvest.capacity());

  /**
   * Records each key twice (a key seen once in a slot is no candidate) and adds the slot; returns
   * how many of them the slot's harvest named (two may share a bucket).
   */
  private int slotWith(String... keys) {
    for (String key : keys) {
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      sketch.record(k, KeyHashes.hash(k), false);
      sketch.record(k, KeyHashes.hash(k), false);
    }
    // the slot's generation is harvested once retired a tick ago, as HotKeyDetector.tick does
    window.advance();
    harvest.collect(sketch, sketch.retire());
    window.add(harvest);
    return harvest.size();
  }

  private void emptySlots(int n) {
    for (int i = 0; i < n; i++) {
      slotWith();
    }
  }

  @Test
  void aWindowWithoutCandidatesHasNoEntryToLoopOver() {
    emptySlots(2 * settings.slots());
    assertEquals(0, window.extent());
  }

  @Test
  void keysTakeTheLowestFreeEntriesAndTheExtentShrinksWhenTheyLeave() {
    String[] burst = new String[50];
    for (int i = 0; i < burst.length; i++) {
      burst[i] = "burst-" + i;
    }
    slotWith(burst);
    int candidates = slotWith();
    assertTrue(candidates > burst.length * 9 / 10, candidates + " of " + burst.length);
    assertEquals(candidates, window.extent(), "one entry each, from 0 up");
    assertEquals(candidates, window.byCount(Integer.MAX_VALUE, false).size());

    emptySlots(settings.slots());
    assertEquals(0, window.extent(), "out of the window: every entry free");

    slotWith("later");
    assertEquals(1, slotWith());
    assertEquals(1, window.extent(), "the next key takes entry 0, not one the burst left on top");
  }
}
