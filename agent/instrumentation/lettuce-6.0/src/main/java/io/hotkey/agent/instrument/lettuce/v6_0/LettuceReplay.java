package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.multiplexed.ReplyTape;
import io.lettuce.core.output.CommandOutput;

/**
 * Writes a recorded reply into a command's {@code CommandOutput} callback by callback, as Lettuce's
 * decoder wrote it when Redis sent it, so that the output's codec builds the caller's own objects.
 * A helper class, defined next to Lettuce like {@link LettuceArguments}.
 */
public final class LettuceReplay {
  /**
   * Lettuce 5 opens every array with {@code multi(int)}; 6 added {@code multiArray}, which outputs
   * may override instead. RESP2 (all 5.x speaks) records nothing but bulks, integers, errors and
   * arrays.
   */
  private static final boolean HAS_MULTI_ARRAY = hasMultiArray();

  private LettuceReplay() {}

  private static boolean hasMultiArray() {
    try {
      CommandOutput.class.getMethod("multiArray", int.class);
      return true;
    } catch (NoSuchMethodException lettuce5) {
      return false;
    }
  }

  /** Throws what the output's callbacks throw, as the same reply from Redis would have. */
  public static void into(CommandOutput<?, ?, ?> output, ReplyTape.Cursor tape) {
    while (tape.next()) {
      switch (tape.op()) {
        case ReplyTape.OP_BULK:
          output.set(tape.bytes());
          break;
        case ReplyTape.OP_LONG:
          output.set(tape.longValue());
          break;
        case ReplyTape.OP_DOUBLE:
          output.set(tape.doubleValue());
          break;
        case ReplyTape.OP_BOOLEAN:
          output.set(tape.booleanValue());
          break;
        case ReplyTape.OP_BIG_NUMBER:
          output.setBigNumber(tape.bytes());
          break;
        case ReplyTape.OP_ARRAY:
          if (HAS_MULTI_ARRAY) {
            output.multiArray(tape.count());
          } else {
            output.multi(tape.count());
          }
          break;
        case ReplyTape.OP_SET:
          output.multiSet(tape.count());
          break;
        case ReplyTape.OP_MAP:
          output.multiMap(tape.count());
          break;
        default:
          output.complete(tape.count());
          break;
      }
    }
  }
}
