package io.hotkey.agent.instrument.jedis.v3_0;

import io.hotkey.agent.core.ServedReply;

/**
 * One thread's call into Jedis 3's synchronous API ({@code BinaryJedis} and {@code Jedis}), as
 * {@link Jedis3Calls} follows it. A helper class, defined next to Jedis in each loader that has it.
 */
final class Jedis3Call {
  /** Nesting of API methods on this thread: only the outermost call's first command is decided. */
  int depth;

  /** Whether the outermost call's first command was sent or answered already. */
  boolean decided;

  /** Whether that command began a local read, which the outermost call's end must end. */
  boolean readBegun;

  /** A local answer that the next reply read on {@link #servedConnection} returns instead. */
  ServedReply served;

  Object servedConnection;

  /** The arguments of the command being decided and their argv, so that its send reuses them. */
  byte[][] decidedArguments;

  byte[][] decidedArgv;

  /** Forgets everything once the outermost call returned. */
  void end() {
    decided = false;
    readBegun = false;
    served = null;
    servedConnection = null;
    decidedArguments = null;
    decidedArgv = null;
  }
}
