package io.hotkey.agent.report;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.CoreFixture;
import io.hotkey.agent.core.HotKeyRegistry;
import io.hotkey.agent.core.ReplyOutcome;
import io.hotkey.agent.core.threadbound.ThreadBoundGateway;
import io.hotkey.agent.detect.HotKeyDetector;
import io.hotkey.agent.detect.HotKeyListener;
import io.hotkey.agent.detect.KeyHashes;
import io.hotkey.agent.metrics.AgentMeters;
import io.hotkey.config.HotkeyConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each hot key's reads as the report shows them: hits and misses since it became hot and their
 * ratio, for keys hot here and across the fleet; null when the cache is off. Reads go through the
 * real gateway, as the Jedis adapter drives it; zero, not null, for a key the registry has yet to
 * hear of.
 */
class AgentReportTest {
  private static final InetSocketAddress SERVER =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 6379);
  private final Object connection = new Object();

  private static String report(CoreFixture core) {
    return report(core, core.detector);
  }

  private static String report(CoreFixture core, HotKeyDetector detector) {
    AgentMeters meters =
        new AgentMeters(
            core.gateways,
            core.cache,
            core.registry,
            detector,
            core.errors,
            null,
            null,
            null,
            core.gate);
    return new AgentReport(HotkeyConfig.defaults(), meters).json();
  }

  private static byte[][] get(String key) {
    return new byte[][] {
      "GET".getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8)
    };
  }

  private void makeHot(CoreFixture core, String key) {
    ThreadBoundGateway gateway = core.gateways.threadBound();
    for (int i = 0; i < 200; i++) {
      gateway.onSend(connection, null, new Object(), get(key));
      gateway.onReplyRead(connection, ReplyOutcome.VALUE);
    }
    core.promote(key);
  }

  /** One read as the Jedis adapter runs it; whether it was answered locally. */
  private boolean read(CoreFixture core, String key) {
    ThreadBoundGateway gateway = core.gateways.threadBound();
    byte[][] argv = get(key);
    boolean served = gateway.beginRead("test", connection, SERVER, argv, argv) != null;
    if (!served) {
      gateway.onSend(connection, null, argv, argv);
      gateway.onReplyRead(connection, ReplyOutcome.VALUE);
      gateway.onRawReply("v".getBytes(StandardCharsets.UTF_8));
    }
    gateway.endRead(false);
    return served;
  }

  /** The members of the hot key named {@code key} in the report's JSON, from its name on. */
  private static String hotKey(String json, String key) {
    int at = json.indexOf("{\"key\":\"" + key + "\"");
    assertTrue(at >= 0, () -> key + " not in " + json);
    return json.substring(at, json.indexOf('}', at) + 1);
  }

  @Test
  void aHotKeyShowsItsHitsMissesAndHitRatioSinceItBecameHot() {
    CoreFixture core = new CoreFixture(0, CoreFixture.EVERY_KEY, true);
    makeHot(core, "hot");
    assertTrue(!read(core, "hot"), "the fill");
    for (int i = 0; i < 3; i++) {
      assertTrue(read(core, "hot"));
    }
    String hot = hotKey(report(core), "hot");
    assertTrue(hot.endsWith(",\"hits\":3,\"misses\":1,\"hitRatio\":0.75}"), hot);
  }

  @Test
  void aFleetHotKeyShowsItsReadsTooAndNoRatioBeforeItsFirst() {
    CoreFixture core = new CoreFixture(0, CoreFixture.EVERY_KEY, true);
    core.registry.onFleetHotKeys(
        List.of(
            new HotKeyRegistry.FleetHotKey("product:7".getBytes(StandardCharsets.UTF_8), 5000, 1)));
    String fleet = hotKey(report(core), "product:7");
    assertTrue(
        fleet.equals(
            "{\"key\":\"product:7\",\"fleetRatePerSecond\":5000.0,\"hits\":0,\"misses\":0,"
                + "\"hitRatio\":null}"),
        fleet);
  }

  @Test
  void aKeyTheDetectorHasJustPromotedShowsNoReadsYetRatherThanNull() {
    CoreFixture core = new CoreFixture(0, CoreFixture.EVERY_KEY, true);
    // a detector whose promotions the registry has not heard of yet, as for a moment after a tick
    HotKeyDetector detector =
        new HotKeyDetector(core.detector.settings(), core.clock::get, HotKeyListener.NONE);
    byte[] key = "hot".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 200; i++) {
      detector.record(key, KeyHashes.hash(key), false);
    }
    for (int i = 0; i < 12; i++) {
      core.clock.addAndGet(100_000_000L);
      detector.tick();
    }
    String hot = hotKey(report(core, detector), "hot");
    assertTrue(hot.endsWith(",\"hits\":0,\"misses\":0,\"hitRatio\":null}"), hot);
  }

  @Test
  void withTheCacheOffNoKeysReadsAreCounted() {
    CoreFixture core = new CoreFixture(0, CoreFixture.EVERY_KEY, false);
    makeHot(core, "hot");
    read(core, "hot");
    String hot = hotKey(report(core), "hot");
    assertNotNull(hot);
    assertTrue(hot.endsWith(",\"hits\":null,\"misses\":null,\"hitRatio\":null}"), hot);
  }
}
