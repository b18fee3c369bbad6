package io.hotkey.agent.instrument.lettuce.v6_0;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.lettuce.core.codec.StringCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LettuceAddKeyAdvice} and {@link LettuceAddValueAdvice} record {@code getBytes(UTF_8)} for
 * a key or value of {@code StringCodec.UTF8} instead of letting the codec encode it: the two must
 * be the same bytes for every string, or the agent would count, serve and store a key or value
 * Redis never sees.
 */
class RecordedArgumentBytesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "product:42",
        "ключ:цена",
        "商品:库存",
        "emoji:\uD83D\uDE00",
        "lone high:\uD800",
        "lone low:\uDC00x",
        "reversed:\uDC00\uD800",
        "nul:\u0000",
        "max:\uFFFF"
      })
  void recordedBytesAreWhatStringCodecUtf8Encodes(String argument) {
    byte[] recorded = argument.getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(bytes(StringCodec.UTF8.encodeKey(argument)), recorded, argument);
    assertArrayEquals(bytes(StringCodec.UTF8.encodeValue(argument)), recorded, argument);
  }

  private static byte[] bytes(ByteBuffer encoded) {
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);
    return bytes;
  }
}
