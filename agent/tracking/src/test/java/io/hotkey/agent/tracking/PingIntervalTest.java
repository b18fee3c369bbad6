package io.hotkey.agent.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ping interval keeps a server's pings from all its tracking clients near a fixed rate. */
class PingIntervalTest {
  @Test
  void aFewHundredTrackingClientsArePingedEvery250Ms() {
    assertEquals(millis(250), PingInterval.forTrackingClients(1));
    assertEquals(millis(250), PingInterval.forTrackingClients(625));
  }

  @Test
  void beyondThatAllOfThemTogetherPingAbout2500TimesASecond() {
    assertEquals(millis(400), PingInterval.forTrackingClients(1_000));
    assertEquals(millis(4_000), PingInterval.forTrackingClients(10_000));
  }

  @Test
  void theIntervalIsAtMostFiveSeconds() {
    assertEquals(millis(5_000), PingInterval.forTrackingClients(100_000));
    assertEquals(millis(250), PingInterval.forTrackingClients(0));
  }

  private static long millis(long ms) {
    return TimeUnit.MILLISECONDS.toNanos(ms);
  }
}
