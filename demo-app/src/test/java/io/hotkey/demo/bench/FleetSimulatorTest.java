package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator works, at a small N against real Redis servers it starts: every node does the
 * fleet's script calls, every instance sees the flash key, and neither a cold key nor any key whose
 * real sum stayed below the threshold is read back as fleet-hot. Its figures are not checked: they
 * are a benchmark's.
 */
class FleetSimulatorTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"standalone", "cluster"})
  void tenInstancesFindTheFlashKeyAndNothingElse(String deployment) throws Exception {
    FleetSimulator.Options options = new FleetSimulator.Options();
    options.cluster = deployment.equals("cluster");
    options.windowMillis = 500;
    options.windows = 3;
    options.threshold = 2_000;
    options.rate = 200;
    options.universe = 1_000;
    options.threads = 4;
    try (SimulatedRedis redis = SimulatedRedis.start(options.cluster, options.redisServer)) {
      List<FleetSimulator.Row> rows = new FleetSimulator(options).run(redis, 10);
      assertEquals(options.cluster ? 3 : 1, rows.size(), "one row per node");
      for (FleetSimulator.Row row : rows) {
        String shown = FleetSimulator.Row.HEADER + "\n" + row;
        assertTrue(row.callsPerWindow >= 5, () -> "too few exchanges reached a node:\n" + shown);
        assertEquals(10, row.instancesThatDetected, () -> "not every instance found it:\n" + shown);
        assertEquals(0, row.falsePromotions, () -> "keys never hot were read back:\n" + shown);
        assertFalse(row.coldPromoted, () -> "the cold key was read back as hot:\n" + shown);
      }
    }
  }
}
