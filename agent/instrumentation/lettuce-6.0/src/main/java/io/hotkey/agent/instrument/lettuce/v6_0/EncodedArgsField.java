package io.hotkey.agent.instrument.lettuce.v6_0;

/**
 * A field the agent adds to Lettuce's {@code CommandArgs} as the class loads: the command's first
 * arguments, when they are a key and then possibly a value that the agent could encode exactly as
 * their codec would without running it ({@link LettuceAddKeyAdvice}, {@link
 * LettuceAddValueAdvice}): a {@code byte[]} when the key was the first argument, a {@code byte[][]}
 * of two when a value followed it directly; {@link #DISPATCHED} (or {@link #REPORTS_SERVER}) once
 * dispatched; else null. The dispatch advice reads {@code GET key}, {@code SET key value} and the
 * like from here instead of encoding the arguments again; the recorded bytes are all the arguments
 * exactly when {@code count()} is their number, as arguments are only ever appended.
 *
 * <p>Why: {@code StringCodec} encodes through Netty's buffer code, the code the I/O thread runs for
 * every command with its own pooled buffers. Running it on the application's threads as well cost
 * the async cold-key benchmark about 0.3 µs of CPU per command (client JVM, measured side by side),
 * more than the encoding itself; {@code String.getBytes} runs none of it. A SET's key and value
 * encoded that way were the larger part of what the agent left on the application's threads (their
 * user CPU per command ×1.37 of the no-agent run with it, ×1.18 without).
 */
public interface EncodedArgsField {
  /** The field's name in {@code CommandArgs}. */
  String NAME = "hotkey$encodedArgs";

  /**
   * The field's value once the command passed {@code RedisChannelHandler.dispatch}: the endpoint's
   * hook ({@link LettuceEndpointWriteAdvice}) then knows the agent has seen it.
   */
  Object DISPATCHED = new Object();

  /**
   * Like {@link #DISPATCHED}, for a command whose server matters (a fill, whose reply is stored
   * only if that server reports its keys' changes; an own write whose report is expected): the
   * endpoint's hook reports the server it is written to.
   */
  Object REPORTS_SERVER = new Object();

  Object hotkey$encodedArgs();

  void hotkey$encodedArgs(Object encoded);
}
