package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.bytebuddy.asm.Advice;

/**
 * On {@code CommandArgs.addValue(value)}: a value added right after a recorded first key ({@code
 * SET key value}, {@code LPUSH key element}...) is recorded with it, so that the dispatch advice
 * does not encode such a command either. {@code StringCodec.UTF8} encodes a value exactly as a key.
 */
public final class LettuceAddValueAdvice {
  private LettuceAddValueAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(
      @Advice.This Object args,
      @Advice.Argument(0) Object value,
      @Advice.FieldValue("codec") Object codec,
      @Advice.FieldValue("singularArguments") List<?> added) {
    if (codec == StringCodec.UTF8 && value instanceof String && added.size() == 2) {
      EncodedArgsField field = (EncodedArgsField) args;
      Object key = field.hotkey$encodedArgs();
      if (key instanceof byte[]) {
        field.hotkey$encodedArgs(
            new byte[][] {(byte[]) key, ((String) value).getBytes(StandardCharsets.UTF_8)});
      }
    }
  }
}
