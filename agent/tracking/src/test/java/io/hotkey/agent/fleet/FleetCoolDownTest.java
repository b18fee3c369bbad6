package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hotkey.agent.core.HotKeyRegistry.FleetHotKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A fleet-hot key stays published while the fleet's sum dips below the threshold for less than the
 * cool-down, and is dropped once it stayed below for the whole cool-down (the test passes the
 * exchanges' instants; no clock runs).
 */
class FleetCoolDownTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long COOL_DOWN = 10 * SECOND;

  @Test
  void aKeyMissingFromOneExchangeStaysHotWithItsLastRate() {
    FleetCoolDown coolDown = new FleetCoolDown();
    assertEquals(List.of("a:272"), names(coolDown.next(hot("a", 272), 0, COOL_DOWN)));
    assertEquals(List.of("a:272"), names(coolDown.next(List.of(), SECOND, COOL_DOWN)));
    assertEquals(List.of("a:280"), names(coolDown.next(hot("a", 280), 2 * SECOND, COOL_DOWN)));
  }

  @Test
  void aKeyBelowForTheWholeCoolDownIsDroppedAndComesBackWhenHotAgain() {
    FleetCoolDown coolDown = new FleetCoolDown();
    coolDown.next(hot("a", 300), 0, COOL_DOWN);
    assertEquals(List.of("a:300"), names(coolDown.next(List.of(), COOL_DOWN - 1, COOL_DOWN)));
    assertEquals(List.of(), names(coolDown.next(List.of(), COOL_DOWN, COOL_DOWN)));
    assertEquals(List.of(), names(coolDown.next(List.of(), COOL_DOWN + SECOND, COOL_DOWN)));
    assertEquals(
        List.of("a:260"), names(coolDown.next(hot("a", 260), COOL_DOWN + 2 * SECOND, COOL_DOWN)));
  }

  @Test
  void eachKeyCoolsFromItsOwnLastHotExchange() {
    FleetCoolDown coolDown = new FleetCoolDown();
    coolDown.next(hot("a", 300), 0, COOL_DOWN);
    coolDown.next(hot("b", 400), 5 * SECOND, COOL_DOWN);
    assertEquals(
        List.of("b:400"), names(coolDown.next(List.of(), 11 * SECOND, COOL_DOWN)), "a cooled");
    assertEquals(List.of(), names(coolDown.next(List.of(), 15 * SECOND, COOL_DOWN)), "b cooled");
  }

  @Test
  void aZeroCoolDownDropsAKeyAtTheFirstExchangeWithoutItAndClearForgetsAll() {
    FleetCoolDown coolDown = new FleetCoolDown();
    coolDown.next(hot("a", 300), 0, 0);
    assertEquals(List.of(), names(coolDown.next(List.of(), 1, 0)));
    coolDown.next(hot("b", 300), 2, COOL_DOWN);
    coolDown.clear();
    assertEquals(List.of(), names(coolDown.next(List.of(), 3, COOL_DOWN)));
  }

  private static List<FleetHotKey> hot(String key, double ratePerSecond) {
    return List.of(
        new FleetHotKey(key.getBytes(StandardCharsets.ISO_8859_1), ratePerSecond, ratePerSecond));
  }

  private static List<String> names(List<FleetHotKey> keys) {
    return keys.stream()
        .map(
            k ->
                new String(k.key(), StandardCharsets.ISO_8859_1)
                    + ":"
                    + Math.round(k.fleetRatePerSecond()))
        .collect(Collectors.toList());
  }
}
