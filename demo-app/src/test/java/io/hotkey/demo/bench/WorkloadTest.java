package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WorkloadTest {

  @Test
  void everyWorkloadIsNamedOnTheCommandLineAsItPrintsItself() {
    for (Workload workload : Workload.values()) {
      assertEquals(workload, Workload.named(workload.cliName()));
    }
    assertEquals("storm-reads", Workload.STORM_READS.cliName());
  }

  @Test
  void theReadOnlyStormWritesNothing() {
    assertEquals(0, Workload.STORM_READS.writeShare());
    assertEquals(Workload.STORM.keys().keyCount(), Workload.STORM_READS.keys().keyCount());
  }

  @Test
  void anUnknownWorkloadIsRefusedWithTheNamesItCouldBe() {
    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> Workload.named("hot"));
    assertEquals("unknown workload hot; expected cold, storm or storm-reads", refused.getMessage());
  }
}
