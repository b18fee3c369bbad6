package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.FailedReadHooks;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * On {@code CommandHandler.getCommandOutput(RedisCommand)}, Lettuce's hook for where the decoder
 * writes a command's reply, asked on each decoding pass: the late reply of a read answered stale
 * goes to {@link LettuceStaleAnswers#discardedReply} rather than into the output the application
 * now holds, and once the decoder has a read's own output, that read is no longer answered stale.
 * Nothing is asked unless {@code hotkey.cache.serve-stale-on-error} is set.
 */
public final class LettuceDecodeTargetAdvice {
  private LettuceDecodeTargetAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(
      @Advice.Argument(0) RedisCommand<?, ?, ?> command,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC)
          CommandOutput<?, ?, ?> output) {
    if (output != null
        && FailedReadHooks.servesStale()
        // answered stale, the innermost command is complete, whatever its wrappers say
        && FailedReadHooks.replyDiscarded(output, CommandWrapper.unwrap(command).isDone())) {
      output = (CommandOutput<?, ?, ?>) LettuceStaleAnswers.discardedReply();
    }
  }
}
