package io.hotkey.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusViewTest {
  private static final long NOW = 1_800_000_000_000L;

  private static String report(String hotKeys, String readsPerSecond) {
    return "{\"agent\":{\"version\":\"1.2.3\",\"pid\":4242,\"startedAt\":"
        + (NOW - 125_000)
        + ",\"time\":"
        + NOW
        + "},\"scope\":\"local\",\"tracking\":{\"mode\":\"ttl\",\"ttlMillis\":5000},"
        + "\"detector\":{\"threshold\":1000,\"windowMillis\":1000,\"topK\":100,\"sampling\":16},"
        + "\"commands\":{\"reads\":123456,\"writes\":78,\"readsPerSecond\":"
        + readsPerSecond
        + ",\"writesPerSecond\":2.0},"
        + "\"hotKeys\":["
        + hotKeys
        + "],"
        + "\"cache\":{\"enabled\":true,\"entries\":3,\"bytes\":2048,\"maxBytes\":67108864,\"hits\":900,"
        + "\"misses\":100,\"evictions\":0,\"hitRatio\":0.9,\"hitsPerSecond\":90.0,\"missesPerSecond\":10.0},"
        + "\"redis\":{\"saved\":900,\"savedPerSecond\":90.0},"
        + "\"idempotency\":{\"enabled\":true,\"outcomes\":{\"executed\":5,\"missing_key\":1}},"
        + "\"agentErrors\":0,"
        + "\"config\":[{\"key\":\"hotkey.detect.threshold\",\"value\":\"1000\",\"source\":\"default\"},"
        + "{\"key\":\"hotkey.cache.exclude\",\"value\":\"\",\"source\":\"default\"}]}";
  }

  private static String hotKey(String key, double rate) {
    return hotKey(key, rate, "\"hits\":12345,\"misses\":67,\"hitRatio\":0.9946");
  }

  /**
   * @param reads the key's {@code hits}, {@code misses} and {@code hitRatio} members
   */
  private static String hotKey(String key, double rate, String reads) {
    return "{\"key\":\""
        + key
        + "\",\"scope\":\"local\",\"rate\":"
        + rate
        + ",\"readShare\":0.99,\"reads\":99,\"writes\":1,\"truncated\":false,\"keyLength\":10,"
        + "\"promotedAt\":"
        + (NOW - 65_000)
        + ","
        + reads
        + "}";
  }

  @Test
  void showsTheFiguresTheHotKeysAndTheConfiguration() {
    List<String> lines =
        StatusView.render(
            ReportDocument.parse(report(hotKey("product:42", 2570.4), "1500.0")),
            0,
            Integer.MAX_VALUE,
            true);
    String text = String.join("\n", lines);
    assertTrue(
        lines
            .get(0)
            .equals("Hotkey Agent 1.2.3 in JVM 4242, up 2m 5s, scope local, freshness ttl 5s"),
        text);
    assertTrue(
        text.contains("commands  1,500/s reads, 2/s writes (123,456 and 78 since start)"), text);
    assertTrue(text.contains("redis     90/s commands saved (900 since start)"), text);
    assertTrue(text.contains("cache     3 entries, 2.0 KB of 64.0 MB, hit ratio 90%"), text);
    assertTrue(
        text.matches(
            "(?s).*\nKEY +RATE/S +READS +HIT% +HITS +MISSES +SCOPE +WRITE-HOT +HOT SINCE\n"
                + "product:42 +2,570 +99% +99% +12,345 +67 local +\\d\\d:\\d\\d:\\d\\d \\(1m 5s\\)\n.*"),
        text);
    assertTrue(text.contains("idempotency  executed 5, missing key 1"), text);
    assertTrue(text.contains("  hotkey.detect.threshold = 1000  (default)"), text);
    assertTrue(text.contains("  hotkey.cache.exclude = \"\"  (default)"), text);
  }

  @Test
  void aKeyWithoutReadCountsShowsDashes() {
    String text =
        String.join(
            "\n",
            StatusView.render(
                ReportDocument.parse(
                    report(
                        hotKey(
                                "product:42",
                                2570.4,
                                "\"hits\":null,\"misses\":null,\"hitRatio\":null")
                            + ","
                            + hotKey("product:43", 10, "\"hits\":0,\"misses\":0,\"hitRatio\":null"),
                        "1.0")),
                0,
                20,
                false));
    assertTrue(text.matches("(?s).*\nproduct:42 +2,570 +99% +- +- +- local .*"), text);
    assertTrue(text.matches("(?s).*\nproduct:43 +10 +99% +- +0 +0 local .*"), text);
  }

  @Test
  void saysSoWhenNothingIsHotOrNotMeasuredYet() {
    String text =
        String.join(
            "\n", StatusView.render(ReportDocument.parse(report("", "null")), 0, 20, false));
    assertTrue(text.contains("no key is hot"), text);
    assertTrue(text.contains("commands  -/s reads"), text);
    assertFalse(text.contains("configuration"), text);
  }

  @Test
  void cutsLongKeysToTheTerminalAndNeverPrintsControlCharacters() {
    String longKey = "k".repeat(200);
    String text =
        String.join(
            "\n",
            StatusView.render(
                ReportDocument.parse(
                    report(hotKey(longKey, 5000) + "," + hotKey("esc\\u001b[2Jx", 4000), "1.0")),
                80,
                20,
                false));
    assertFalse(text.contains("\u001b"), text);
    assertTrue(text.contains("esc?[2Jx"), text);
    for (String line : text.split("\n")) {
      if (line.startsWith("k")) {
        assertTrue(line.length() <= 80 + 20, line);
        assertTrue(line.contains("..."), line);
      }
    }
  }

  @Test
  void showsAtMostTheRowsAskedFor() {
    String text =
        String.join(
            "\n",
            StatusView.render(
                ReportDocument.parse(
                    report(hotKey("a", 3) + "," + hotKey("b", 2) + "," + hotKey("c", 1), "1.0")),
                0,
                2,
                false));
    assertTrue(text.contains("... 1 more"), text);
    assertFalse(text.contains("\nc "), text);
  }

  @Test
  void readsJsonAsTheAgentWritesIt() {
    Object parsed =
        Json.parse("{\"a\":[1,-2.5e3,\"x\\\"y\\u003c\"],\"b\":{\"c\":null,\"d\":false}}");
    Map<?, ?> b = (Map<?, ?>) ((Map<?, ?>) parsed).get("b");
    assertEquals(List.of(1.0, -2500.0, "x\"y<"), ((Map<?, ?>) parsed).get("a"));
    assertTrue(b.containsKey("c") && b.get("c") == null, () -> "b " + b);
    assertEquals(false, b.get("d"));
    assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\":1} x"));
    assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\":"));
  }
}
