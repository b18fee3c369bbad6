package io.hotkey.agent.core.multiplexed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A recorded reply replays the decoder's callbacks, complete(depth) calls included, in the
 * decoder's order.
 */
class ReplyTapeTest {
  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> replay(List<Object> tape) {
    List<String> calls = new ArrayList<>();
    ReplyTape.Cursor c = new ReplyTape.Cursor(tape);
    while (c.next()) {
      switch (c.op()) {
        case ReplyTape.OP_BULK -> {
          ByteBuffer b = c.bytes();
          calls.add(b == null ? "set(null)" : "set(" + StandardCharsets.UTF_8.decode(b) + ")");
        }
        case ReplyTape.OP_LONG -> calls.add("set(" + c.longValue() + "L)");
        case ReplyTape.OP_DOUBLE -> calls.add("set(" + c.doubleValue() + "d)");
        case ReplyTape.OP_BOOLEAN -> calls.add("set(" + c.booleanValue() + ")");
        case ReplyTape.OP_BIG_NUMBER ->
            calls.add("setBigNumber(" + StandardCharsets.UTF_8.decode(c.bytes()) + ")");
        case ReplyTape.OP_SET -> calls.add("multiSet(" + c.count() + ")");
        case ReplyTape.OP_MAP -> calls.add("multiMap(" + c.count() + ")");
        case ReplyTape.OP_ARRAY -> calls.add("multiArray(" + c.count() + ")");
        case ReplyTape.OP_COMPLETE -> calls.add("complete(" + c.count() + ")");
        default -> calls.add("op" + c.op());
      }
    }
    return calls;
  }

  @Test
  void aScalarReplyIsOneElement() {
    ReplyTape.Recorder r = new ReplyTape.Recorder(1024);
    r.bulk(bytes("v"));
    assertTrue(r.finished());
    assertEquals(List.of("set(v)", "complete(0)"), replay(r.tape()));
  }

  @Test
  void aCodecWritingIntoItsBufferLeavesTheTapeAsRecorded() {
    ReplyTape.Recorder r = new ReplyTape.Recorder(1024);
    r.bulk(bytes("v"));
    ReplyTape.Cursor c = new ReplyTape.Cursor(r.tape());
    assertTrue(c.next());
    c.bytes().put(0, (byte) 'x');
    assertEquals(List.of("set(v)", "complete(0)"), replay(r.tape()));
  }

  @Test
  void aLongValueIsHandedAsAReadOnlyViewOfTheTape() {
    String value = "v".repeat(ReplyTape.Cursor.COPIED_BYTES + 1);
    ReplyTape.Recorder r = new ReplyTape.Recorder(4096);
    r.bulk(bytes(value));
    ReplyTape.Cursor c = new ReplyTape.Cursor(r.tape());
    assertTrue(c.next());
    ByteBuffer b = c.bytes();
    assertTrue(b.isReadOnly());
    assertEquals(value, StandardCharsets.UTF_8.decode(b).toString());
  }

  @Test
  void nestedAggregatesCompleteLikeTheDecoder() {
    // RESP3 map {f1: [1, nil], f2: []}
    ReplyTape.Recorder r = new ReplyTape.Recorder(1024);
    r.aggregate(ReplyTape.OP_MAP, 2);
    r.bulk(bytes("f1"));
    r.aggregate(ReplyTape.OP_ARRAY, 2);
    r.scalar(1L, 16);
    r.bulk(null);
    assertFalse(r.finished());
    r.bulk(bytes("f2"));
    r.aggregate(ReplyTape.OP_ARRAY, 0);
    assertTrue(r.finished());
    assertEquals(
        List.of(
            "multiMap(2)",
            "set(f1)",
            "complete(1)",
            "multiArray(2)",
            "set(1L)",
            "complete(2)",
            "set(null)",
            "complete(2)",
            "complete(1)",
            "set(f2)",
            "complete(1)",
            "multiArray(0)",
            "complete(1)",
            "complete(0)"),
        replay(r.tape()));
  }

  @Test
  void everyKindOfElementReplaysInItsPlace() {
    // RESP3 [#t, ,1.5, (12345678901234567890, ~{"m"}, nil, 7, "v"]
    ReplyTape.Recorder r = new ReplyTape.Recorder(1024);
    r.aggregate(ReplyTape.OP_ARRAY, 7);
    r.scalar(true, 16);
    r.scalar(1.5d, 16);
    r.bigNumber(bytes("12345678901234567890"));
    r.aggregate(ReplyTape.OP_SET, 1);
    r.bulk(bytes("m"));
    r.bulk(null);
    r.scalar(7L, 16);
    r.bulk(bytes("v"));
    assertTrue(r.finished());
    assertEquals(
        List.of(
            "multiArray(7)",
            "set(true)",
            "complete(1)",
            "set(1.5d)",
            "complete(1)",
            "setBigNumber(12345678901234567890)",
            "complete(1)",
            "multiSet(1)",
            "set(m)",
            "complete(2)",
            "complete(1)",
            "set(null)",
            "complete(1)",
            "set(7L)",
            "complete(1)",
            "set(v)",
            "complete(1)",
            "complete(0)"),
        replay(r.tape()));
  }

  @Test
  void oversizedOrTrailingEventsFailTheRecording() {
    ReplyTape.Recorder small = new ReplyTape.Recorder(20);
    small.bulk(bytes("a value that is too long"));
    assertTrue(small.failed());
    ReplyTape.Recorder r = new ReplyTape.Recorder(1024);
    r.bulk(bytes("v"));
    r.bulk(bytes("w"));
    assertTrue(r.failed());
  }
}
