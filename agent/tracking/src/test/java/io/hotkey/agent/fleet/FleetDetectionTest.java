package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.AgentErrors;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.detect.DetectorSettings;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.testing.RedisProcess;
import io.hotkey.config.Glob;
import io.hotkey.config.KeyFilter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fleet detection turned on and off while the JVM runs, against a real Redis where another instance
 * keeps reporting a key above the fleet threshold: a threshold set starts the exchanges and the key
 * becomes fleet-hot; 0 demotes it at once and stops exchanging; set again, it starts over.
 */
class FleetDetectionTest {
  private static final Duration WINDOW = Duration.ofMillis(500);
  private static final String NAMESPACE = "fleet-detection-test:";
  private static final byte[] KEY = "product:7".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SHARD = (NAMESPACE + "{fleet}").getBytes(StandardCharsets.UTF_8);

  private static RedisProcess redis;
  private static RespClient otherInstance;

  @BeforeAll
  static void start() throws Exception {
    redis = RedisProcess.start();
    otherInstance = new RespClient(RedisEndpoint.of("127.0.0.1", redis.port()), 1000, 1000, 1, 0);
  }

  @AfterAll
  static void stop() throws Exception {
    otherInstance.close();
    redis.close();
  }

  @Test
  void aThresholdSetStartsTheExchangesAndZeroStopsThemAndDemotesTheFleetsKeysAtOnce()
      throws Exception {
    HotKeyRegistry registry =
        new HotKeyRegistry(true, new KeyFilter(List.of(Glob.parse("*")), List.of()), 1e9);
    HotKeyDetector detector =
        new HotKeyDetector(
            DetectorSettings.of(WINDOW, 1_000_000, 10, Duration.ofSeconds(1)),
            System::nanoTime,
            registry);
    FleetDetection fleet =
        new FleetDetection(
            detector,
            registry,
            FleetRedis.named(RedisEndpoint.of("127.0.0.1", redis.port())),
            NAMESPACE,
            new AgentErrors(0));
    // 100/s over the fleet: 50 accesses in a window of 500 ms; the other instance reports 1,000
    FleetAggregate other = new FleetAggregate(WINDOW, 100, 10);

    fleet.setThreshold(0);
    Thread.sleep(3 * WINDOW.toMillis());
    assertEquals(0, fleet.exchanges(), "exchanges with the threshold at 0");

    fleet.setThreshold(100);
    assertTrue(
        reportingUntil(other, 20, () -> fleetHotKeys(registry).equals(List.of("product:7"))),
        () ->
            "never fleet-hot: " + fleetHotKeys(registry) + ", " + fleet.exchanges() + " exchanges");

    fleet.setThreshold(0);
    assertEquals(List.of(), fleetHotKeys(registry), "fleet-hot after the threshold went to 0");
    long exchangesWhenStopped = fleet.exchanges();
    Thread.sleep(4 * WINDOW.toMillis());
    // the run may have been inside an exchange when it was stopped: that one may still count
    assertTrue(
        fleet.exchanges() <= exchangesWhenStopped + 1,
        () -> (fleet.exchanges() - exchangesWhenStopped) + " exchanges after the stop");
    reportingUntil(other, 4, () -> false);
    assertEquals(List.of(), fleetHotKeys(registry), "promoted again with the threshold at 0");

    fleet.setThreshold(100);
    assertTrue(
        reportingUntil(other, 20, () -> fleetHotKeys(registry).equals(List.of("product:7"))),
        () -> "not fleet-hot once the threshold was set again: " + fleetHotKeys(registry));
    fleet.setThreshold(0);
  }

  /**
   * Has the other instance report the key every half window until {@code condition} holds or {@code
   * windows} windows passed; whether it held.
   */
  private static boolean reportingUntil(
      FleetAggregate other, int windows, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + windows * WINDOW.toNanos();
    while (System.nanoTime() < deadline) {
      other.exchange(otherInstance, SHARD, -1, List.of(new KeyCount(KEY, 1_000)));
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(WINDOW.toMillis() / 2);
    }
    return condition.getAsBoolean();
  }

  private static List<String> fleetHotKeys(HotKeyRegistry registry) {
    return registry.fleetHotKeys().stream()
        .map(k -> new String(k.key(), StandardCharsets.UTF_8))
        .collect(Collectors.toList());
  }
}
