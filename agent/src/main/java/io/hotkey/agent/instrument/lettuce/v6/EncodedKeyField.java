package io.hotkey.agent.instrument.lettuce.v6;

/**
 * A field the agent adds to Lettuce's {@code CommandArgs} as the class loads: the bytes of the first
 * key added to it, when the agent can produce exactly the bytes its codec would without running the
 * codec (see {@link LettuceAddKeyAdvice}), else null. The dispatch advice then reads a one-key
 * command's key from here instead of calling {@code getFirstEncodedKey()}.
 *
 * <p>Why: {@code StringCodec} encodes through Netty's buffer code, the code the I/O thread runs for
 * every command with its own pooled buffers. Running it on the application's threads as well cost the
 * async cold-key benchmark about 0.3 µs of CPU per command (client JVM, measured side by side), more
 * than the encoding itself; {@code String.getBytes} runs none of it.
 */
public interface EncodedKeyField {
  /** The field's name in {@code CommandArgs}. */
  String NAME = "hotkey$encodedKey";

  Object hotkey$encodedKey();

  void hotkey$encodedKey(Object encoded);
}
