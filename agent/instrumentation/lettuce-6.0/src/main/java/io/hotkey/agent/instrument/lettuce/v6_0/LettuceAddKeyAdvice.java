package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.bytebuddy.asm.Advice;

/**
 * On {@code CommandArgs.addKey(key)}, which every way of adding a key goes through: records a key
 * that is the first argument in the {@link EncodedArgsField} when the codec is Lettuce's {@code
 * StringCodec.UTF8} (what {@code RedisClient.connect()} uses), whose encoding of a {@code String}
 * is exactly {@code getBytes(UTF_8)}, an unpaired surrogate included (both write {@code '?'}). Any
 * other codec or position leaves the field as it is, and the arguments are encoded by their codec
 * at dispatch, as before.
 */
public final class LettuceAddKeyAdvice {
  private LettuceAddKeyAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(
      @Advice.This Object args,
      @Advice.Argument(0) Object key,
      @Advice.FieldValue("codec") Object codec,
      @Advice.FieldValue("singularArguments") List<?> added) {
    if (codec == StringCodec.UTF8 && key instanceof String && added.size() == 1) {
      ((EncodedArgsField) args).hotkey$encodedArgs(((String) key).getBytes(StandardCharsets.UTF_8));
    }
  }
}
