package io.hotkey.agent.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.hotkey.agent.idempotency.store.ResponseCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResponseCodecTest {
  @Test
  void roundTripsStatusHeadersAndBinaryBody() {
    byte[] body = new byte[70_000];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    HttpAnswer answer =
        new HttpAnswer(
            201,
            List.of(
                Map.entry("Content-Type", "application/json; charset=utf-8"),
                Map.entry("Location", "/orders/\u00e9"),
                Map.entry("Vary", "")),
            body);
    HttpAnswer back = ResponseCodec.decode(ResponseCodec.encode(answer));
    assertEquals(answer, back);
    HttpAnswer empty = new HttpAnswer(204, List.of(), new byte[0]);
    assertEquals(empty, ResponseCodec.decode(ResponseCodec.encode(empty)));
  }

  @Test
  void rejectsCorruptBytes() {
    byte[] encoded =
        ResponseCodec.encode(new HttpAnswer(200, List.of(), "ok".getBytes(StandardCharsets.UTF_8)));
    assertThrows(
        IllegalArgumentException.class,
        () -> ResponseCodec.decode(Arrays.copyOf(encoded, encoded.length - 1)));
    assertThrows(IllegalArgumentException.class, () -> ResponseCodec.decode(new byte[] {9}));
    assertThrows(
        IllegalArgumentException.class,
        () -> ResponseCodec.decode(Arrays.copyOf(encoded, encoded.length + 1)));
  }
}
