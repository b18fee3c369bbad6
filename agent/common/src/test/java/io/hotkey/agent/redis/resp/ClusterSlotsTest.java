package io.hotkey.agent.redis.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Redis Cluster's key-to-slot rule, against the values Redis' own documentation gives. */
class ClusterSlotsTest {
  private static int slot(String key) {
    return ClusterSlots.slot(key.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void slotsAreCrc16OfTheKeyModulo16384() {
    assertEquals(0x31c3 & 16383, slot("123456789"), "CRC16/XMODEM check value 0x31C3");
    assertEquals(12182, slot("foo"));
    assertEquals(5061, slot("bar"));
  }

  @Test
  void aHashTagIsTheTextBetweenTheFirstBraceAndTheNextClosingOne() {
    assertEquals(slot("user1000"), slot("{user1000}.following"));
    assertEquals(slot("user1000"), slot("{user1000}.followers"));
    assertEquals(slot("bar"), slot("foo{bar}{zap}"));
    assertEquals(slot("{bar"), slot("foo{{bar}}zap"));
    assertEquals(wholeKey("foo{}{bar}"), slot("foo{}{bar}"), "an empty tag hashes the whole key");
    assertEquals(wholeKey("open{only"), slot("open{only"), "so does a brace never closed");
  }

  @Test
  void clusterSlotsRepliesNameEachRangesMaster() {
    List<Object> reply =
        List.of(
            List.of(0L, 5460L, List.of(bytes("10.0.0.1"), 7000L, bytes("id-a"))),
            List.of(
                5461L,
                16383L,
                List.of(bytes(""), 7001L, bytes("id-b")),
                List.of(bytes("r"), 7002L)));
    List<ClusterSlots.Range> ranges = ClusterSlots.parse(reply, "seed-host");
    assertEquals(2, ranges.size());
    assertEquals("10.0.0.1", ranges.get(0).host);
    assertEquals(5460, ranges.get(0).last);
    assertEquals("seed-host", ranges.get(1).host, "an empty host is the node asked");
    assertEquals(7001, ranges.get(1).port);
  }

  /** CRC16/XMODEM bit by bit over the whole key, modulo 16384. */
  private static int wholeKey(String key) {
    int crc = 0;
    for (byte b : bytes(key)) {
      crc ^= (b & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
      }
    }
    return crc & 16383;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
