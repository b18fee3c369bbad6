package io.hotkey.agent.core.multiplexed;

import io.hotkey.agent.core.RedisHooks;
import java.nio.ByteBuffer;

/** A command's arguments as a multiplexed client encodes them on the wire, read back into argv. */
final class EncodedArguments {
  private EncodedArguments() {}

  /**
   * @param encoded {@code count} RESP bulk strings; or, with {@code count} {@link
   *     RedisHooks#ONE_RAW_ARGUMENT}, the command's only argument as it is, without RESP framing
   */
  static byte[][] argv(byte[] name, ByteBuffer encoded, int count) {
    if (count == RedisHooks.ONE_RAW_ARGUMENT) {
      ByteBuffer view = encoded.duplicate();
      byte[] only = new byte[view.remaining()];
      view.get(only);
      return new byte[][] {name, only};
    }
    byte[][] argv = new byte[count + 1][];
    argv[0] = name;
    ByteBuffer in = encoded == null ? ByteBuffer.allocate(0) : encoded.duplicate();
    for (int i = 1; i <= count; i++) {
      if (in.get() != '$') {
        throw new IllegalArgumentException("argument " + i + " is not a bulk string");
      }
      int length = 0;
      byte b;
      while ((b = in.get()) != '\r') {
        length = length * 10 + (b - '0');
      }
      in.get();
      byte[] arg = new byte[length];
      in.get(arg);
      in.get();
      in.get();
      argv[i] = arg;
    }
    return argv;
  }
}
