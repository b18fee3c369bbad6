package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.multiplexed.DispatchOutcome;
import io.hotkey.agent.core.multiplexed.LocalAnswerCheck;
import io.hotkey.agent.core.multiplexed.ReplyTape;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * On {@code RedisChannelHandler.dispatch(RedisCommand)}. The arguments are taken in their wire form
 * ({@code CommandArgs.encode}, the bytes Redis will see whatever the codec; the hook copies what it
 * keeps before the buffer is released), so keys match the other clients' and the command table
 * applies unchanged. Cheaper to produce and to read: the arguments {@link LettuceAddKeyAdvice} and
 * {@link LettuceAddValueAdvice} recorded, when they are all of them (handed over, not copied:
 * nothing else holds them); else, for a command whose only argument is a key, that key as its codec
 * encodes it ({@code getFirstEncodedKey}, the same bytes without the framing). A hot read is
 * answered by replaying the recorded decoder callbacks into this command's own {@code
 * CommandOutput} (its codec builds the caller's own objects) and completing the command; the method
 * is then skipped, and the command gets the span Lettuce's tracing would have given it ({@link
 * LocalAnswerSpan}). A callback that throws fails the command exactly as the same reply from Redis
 * would have. A read parked behind a reply already on its way (see {@code RedisHooks.commandDone})
 * is skipped too, and returned as the dispatched command, which it still is: it completes when it
 * is resumed. Nothing is answered on a connection that would not write the command to Redis now
 * ({@link LettuceConnectionCheck}, asked by the gateway only for a read it would answer): closed,
 * or without a channel.
 */
public final class LettuceDispatchAdvice {
  private LettuceDispatchAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  @SuppressWarnings({"rawtypes", "unchecked"})
  public static RedisCommand onEnter(
      @Advice.This Object connection, @Advice.Argument(0) RedisCommand command) {
    if (!RedisHooks.active()) {
      return null;
    }
    CommandArgs args = command.getArgs();
    CommandOutput output = command.getOutput();
    LocalAnswerCheck answerable =
        connection instanceof io.lettuce.core.pubsub.StatefulRedisPubSubConnection
            ? LocalAnswerCheck.NEVER
            : LettuceConnectionCheck.INSTANCE;
    // a parked read being resumed was looked at when it was first dispatched; it is sent if its
    // connection has closed or lost its channel since
    DispatchOutcome outcome = RedisHooks.resumption(command, answerable);
    if (outcome == null) {
      byte[] name = command.getType().getBytes();
      // GET key, SET key value... recorded as they were added if the agent could (count() tells
      // whether what was recorded is all of the arguments)
      Object recorded = null;
      if (args instanceof EncodedArgsField) {
        EncodedArgsField field = (EncodedArgsField) args;
        recorded = field.hotkey$encodedArgs();
        field.hotkey$encodedArgs(EncodedArgsField.DISPATCHED);
      }
      byte[][] argv = null;
      if (recorded instanceof byte[] && args.count() == 1) {
        argv = new byte[][] {name, (byte[]) recorded};
      } else if (recorded instanceof byte[][] && args.count() == 2) {
        byte[][] keyAndValue = (byte[][]) recorded;
        argv = new byte[][] {name, keyAndValue[0], keyAndValue[1]};
      }
      if (argv != null) {
        outcome = RedisHooks.dispatch("lettuce", connection, command, output, argv, answerable);
      } else {
        ByteBuf buffer = null;
        try {
          ByteBuffer encoded = null;
          int count = 0;
          if (args != null && args.count() == 1) {
            // the codec's bytes of the only argument, no wire framing
            encoded = args.getFirstEncodedKey();
            count = RedisHooks.ONE_RAW_ARGUMENT;
          }
          if (args != null && encoded == null) {
            buffer = LettuceArguments.encode(args);
            encoded = buffer.nioBuffer();
            count = args.count();
          }
          outcome =
              RedisHooks.dispatch(
                  "lettuce", connection, command, output, name, encoded, count, answerable);
        } finally {
          if (buffer != null) {
            buffer.release();
          }
        }
      }
    }
    if (outcome == DispatchOutcome.SEND_REPORTING_SERVER) {
      if (args instanceof EncodedArgsField) {
        ((EncodedArgsField) args).hotkey$encodedArgs(EncodedArgsField.REPORTS_SERVER);
      }
      return null;
    }
    if (outcome.sends()) {
      return null;
    }
    if (outcome == DispatchOutcome.PARKED) {
      return command;
    }
    ReplyTape.Cursor tape = outcome.replay();
    // the read is answered here whatever the tracing does: were this advice to fail now, the
    // suppressed failure would send a read already counted as answered to Redis
    try {
      LocalAnswerSpan.start(connection, command);
    } catch (Throwable tracingFailure) {
      RedisHooks.localAnswerSpanFailed(tracingFailure);
    }
    try {
      LettuceReplay.into(output, tape);
    } catch (Throwable e) {
      command.completeExceptionally(e);
      return command;
    }
    command.complete();
    return command;
  }

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter RedisCommand<?, ?, ?> served,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result) {
    if (served != null) {
      result = served;
    }
  }
}
