package io.hotkey.agent.redis.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A reader of chunks (the WebFlux store's event-loop connection) decodes what it has and waits for
 * more on an {@link EOFException}: every cut of a reply must end in one, never in a "malformed"
 * IOException, and the whole reply decodes once it is all there.
 */
class RespDecoderTest {
  private static final byte[] REPLY =
      "*3\r\n+C\r\n$5\r\nabcde\r\n:42\r\n".getBytes(StandardCharsets.US_ASCII);

  @Test
  void everyCutOfAReplyIsIncompleteNotMalformed() {
    for (int cut = 1; cut < REPLY.length; cut++) {
      ByteArrayInputStream prefix = new ByteArrayInputStream(REPLY, 0, cut);
      int at = cut;
      assertThrows(EOFException.class, () -> new RespDecoder(prefix).next(), () -> "cut at " + at);
    }
  }

  @Test
  void theWholeReplyDecodes() throws IOException {
    List<?> items = (List<?>) new RespDecoder(new ByteArrayInputStream(REPLY)).next();
    assertEquals("C", items.get(0));
    assertArrayEquals("abcde".getBytes(StandardCharsets.US_ASCII), (byte[]) items.get(1));
    assertEquals(42L, items.get(2));
  }

  @Test
  void aLineWithoutItsLineFeedIsMalformed() {
    IOException malformed =
        assertThrows(
            IOException.class,
            () ->
                new RespDecoder(
                        new ByteArrayInputStream("+OK\rx\n".getBytes(StandardCharsets.US_ASCII)))
                    .next());
    assertEquals("malformed RESP line", malformed.getMessage());
  }
}
