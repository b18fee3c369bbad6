package io.hotkey.agent.instrument.lettuce.v6;

import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import net.bytebuddy.asm.Advice;

/**
 * On {@code CommandArgs.addKey(key)}, which every way of adding a key goes through: records the first
 * key's bytes in the {@link EncodedKeyField} when the codec is Lettuce's {@code StringCodec.UTF8}
 * (what {@code RedisClient.connect()} uses), whose encoding of a {@code String} is exactly
 * {@code getBytes(UTF_8)}, an unpaired surrogate included (both write {@code '?'}). Any other codec
 * leaves the field empty and the key is encoded by its codec at dispatch, as before.
 */
public final class LettuceAddKeyAdvice {
  private LettuceAddKeyAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(@Advice.This Object args, @Advice.Argument(0) Object key,
      @Advice.FieldValue("codec") Object codec) {
    EncodedKeyField field = (EncodedKeyField) args;
    if (codec == StringCodec.UTF8 && key instanceof String && field.hotkey$encodedKey() == null) {
      field.hotkey$encodedKey(((String) key).getBytes(StandardCharsets.UTF_8));
    }
  }
}
