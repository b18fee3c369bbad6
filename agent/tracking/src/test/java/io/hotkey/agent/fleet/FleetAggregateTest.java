package io.hotkey.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Three instances' counts summed in a real Redis, windows numbered by its clock. */
class FleetAggregateTest {
  private static final Duration WINDOW = Duration.ofSeconds(2);

  private static RedisProcess redis;
  private static final List<RespClient> instances = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    redis = RedisProcess.start();
    for (int i = 0; i < 3; i++) {
      instances.add(new RespClient(RedisEndpoint.of("127.0.0.1", redis.port()), 1000, 1000, 1, 0));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    instances.forEach(RespClient::close);
    redis.close();
  }

  @Test
  void aKeyBelowTheThresholdOnEachInstanceButAboveItInSumIsHotForEveryInstanceOnceComplete()
      throws Exception {
    // 100/s over a 2 s window: a key is fleet-hot at 200 accesses in one window
    FleetAggregate aggregate = new FleetAggregate(WINDOW, 100, 10);
    byte[] shard = shardOf("test1:", instances.get(0));
    startEarlyInAWindow(aggregate, shard);

    List<FleetAggregate.Exchange> exchanges = new ArrayList<>();
    for (RespClient instance : instances) {
      exchanges.add(
          aggregate.exchange(
              instance, shard, -1, List.of(count("product:7", 80), count("cart:1", 30))));
    }
    assertEquals(exchanges.get(0).window, exchanges.get(2).window, "one window");
    assertEquals(List.of(), names(exchanges.get(2).hot), "the window is not complete yet");

    sleepUntilWindow(aggregate, shard, exchanges.get(0).window + 1);
    FleetAggregate.Exchange next =
        aggregate.exchange(instances.get(0), shard, exchanges.get(0).reported, List.of());
    assertEquals(List.of("product:7"), names(next.hot), "240 of 200 in the complete window");
    assertEquals(240, next.hot.get(0).count());
    assertEquals(3, next.reporters, "instances that reported into the complete window");
    assertEquals(
        List.of("product:7"),
        names(aggregate.exchange(instances.get(1), shard, -1, List.of()).hot),
        "every later reader of the window gets the same list");

    sleepUntilWindow(aggregate, shard, exchanges.get(0).window + 2);
    assertEquals(List.of(), names(aggregate.exchange(instances.get(0), shard, -1, List.of()).hot));
  }

  @Test
  void aWindowAlreadyReportedIsNotCountedTwice() throws Exception {
    FleetAggregate aggregate = new FleetAggregate(WINDOW, 100, 10);
    byte[] shard = shardOf("test3:", instances.get(0));
    startEarlyInAWindow(aggregate, shard);
    FleetAggregate.Exchange first =
        aggregate.exchange(instances.get(0), shard, -1, List.of(count("k", 150)));
    assertEquals(first.window - 1, first.reported);
    FleetAggregate.Exchange again =
        aggregate.exchange(instances.get(0), shard, first.reported, List.of(count("k", 150)));
    assertEquals(first.window, again.window);
    sleepUntilWindow(aggregate, shard, first.window + 1);
    assertEquals(
        List.of(),
        names(aggregate.exchange(instances.get(0), shard, Long.MAX_VALUE, List.of()).hot),
        "150 reported twice would make 300 of 200");
    Object reporters =
        instances
            .get(0)
            .call(bytes("GET"), bytes("test3:{fleet}:" + first.reported + ":reporters"));
    assertEquals("1", new String((byte[]) reporters, StandardCharsets.US_ASCII));
  }

  @Test
  void aHotListOfBinaryKeysReadsBack() throws Exception {
    byte[] key = {'a', ':', '\n', 0, (byte) 0xff};
    byte[] list = new byte[3 + key.length + 4];
    System.arraycopy(bytes("5:"), 0, list, 0, 2);
    System.arraycopy(key, 0, list, 2, key.length);
    System.arraycopy(bytes("240\n"), 0, list, 2 + key.length, 4);
    List<KeyCount> hot = FleetAggregate.hotKeys(java.util.Arrays.copyOf(list, 2 + key.length + 4));
    assertEquals(1, hot.size());
    assertArrayEquals(key, hot.get(0).key());
    assertEquals(240, hot.get(0).count());
  }

  /**
   * The first report of a window sets its keys' expiry; later ones, which find them, need not (the
   * second instance's first key is one the window already counts), and the keys still expire.
   */
  @Test
  void aggregatesLiveInOneHashTagAndExpireTwoWindowsAfterTheirWindowEnded() throws Exception {
    FleetAggregate aggregate = new FleetAggregate(WINDOW, 100, 10);
    byte[] shard = shardOf("test2:", instances.get(0));
    assertEquals("test2:{fleet}", new String(shard, StandardCharsets.UTF_8), "one shard");
    startEarlyInAWindow(aggregate, shard);
    FleetAggregate.Exchange exchange =
        aggregate.exchange(instances.get(0), shard, -1, List.of(count("k", 5)));
    long reported = System.nanoTime();
    FleetAggregate.Exchange second =
        aggregate.exchange(instances.get(1), shard, -1, List.of(count("k", 5), count("j", 1)));
    assertEquals(exchange.window, second.window, "both reports went into one window");
    Object reporters =
        instances
            .get(0)
            .call(bytes("GET"), bytes("test2:{fleet}:" + (exchange.window - 1) + ":reporters"));
    assertEquals("2", new String((byte[]) reporters, StandardCharsets.US_ASCII));
    long expected = 2 * WINDOW.toMillis() - exchange.offsetMillis;
    for (String name :
        List.of(
            "test2:{fleet}:" + (exchange.window - 1),
            "test2:{fleet}:" + (exchange.window - 1) + ":reporters")) {
      long left = (Long) instances.get(0).call(bytes("PTTL"), bytes(name));
      // a loaded machine may take a while between the report and this question
      long since = (System.nanoTime() - reported) / 1_000_000;
      assertTrue(
          left > expected - 200 - since && left <= expected,
          name + " expires in " + left + " ms, " + since + " ms after the report");
    }
  }

  private static byte[] shardOf(String namespace, RespClient client) throws Exception {
    FleetShards shards = FleetShards.of(client, namespace);
    assertEquals(1, shards.count(), "a single server has one shard");
    return shards.base(0);
  }

  /** Sleeps to the start of a window if the current one is past its first half. */
  private static void startEarlyInAWindow(FleetAggregate aggregate, byte[] shard) throws Exception {
    FleetAggregate.Exchange probe =
        aggregate.exchange(instances.get(0), shard, Long.MAX_VALUE, List.of());
    if (probe.offsetMillis > WINDOW.toMillis() / 2) {
      Thread.sleep(WINDOW.toMillis() - probe.offsetMillis + 20);
    }
  }

  private static void sleepUntilWindow(FleetAggregate aggregate, byte[] shard, long window)
      throws Exception {
    while (aggregate.exchange(instances.get(0), shard, Long.MAX_VALUE, List.of()).window < window) {
      Thread.sleep(50);
    }
  }

  private static KeyCount count(String key, long count) {
    return new KeyCount(bytes(key), count);
  }

  private static List<String> names(List<KeyCount> counts) {
    return counts.stream()
        .map(c -> new String(c.key(), StandardCharsets.UTF_8))
        .collect(Collectors.toList());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
