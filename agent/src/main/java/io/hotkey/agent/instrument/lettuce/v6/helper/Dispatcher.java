package io.hotkey.agent.instrument.lettuce.v6.helper;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ReplyTape;
import io.hotkey.agent.instrument.lettuce.v6.EncodedArgsField;
import io.hotkey.agent.instrument.lettuce.v6.LettuceAddKeyAdvice;
import io.hotkey.agent.instrument.lettuce.v6.LettuceAddValueAdvice;
import io.hotkey.agent.instrument.lettuce.v6.LettuceDispatch;
import io.hotkey.agent.instrument.lettuce.v6.LettuceHelpers;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.PreferHeapByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Collection;

/**
 * The dispatch advice's work, defined next to Lettuce's {@code RedisChannelHandler} as
 * {@code io.lettuce.core.HotkeyAgentDispatcher} ({@link LettuceHelpers}).
 *
 * <p>The arguments are taken in their wire form ({@code CommandArgs.encode}, the bytes Redis will see
 * whatever the codec; the hooks copy what they keep before the buffer is released), so keys match the
 * other clients' and the command table applies unchanged. Cheaper to produce and to read: the
 * arguments {@link LettuceAddKeyAdvice} and {@link LettuceAddValueAdvice} recorded, when they are all
 * of them (handed over, not copied: nothing else holds them); else, for a command whose only argument
 * is a key, that key as its codec encodes it ({@code getFirstEncodedKey}, the same bytes without the
 * framing).
 *
 * <p>A hot read is answered by replaying the recorded decoder callbacks into this command's own
 * {@code CommandOutput} (its codec builds the caller's own objects) and completing the command. A
 * callback that throws fails the command exactly as the same reply from Redis would have. A read
 * parked behind a reply already on its way (see {@code RedisHooks.commandDone}) completes when it is
 * resumed.
 */
public final class Dispatcher implements LettuceDispatch {
  /**
   * Encoding borrows a temporary buffer, on the heap, and so must every buffer the codec asks the
   * target's allocator for ({@code StringCodec.UTF8} encodes each argument into one first): Netty's
   * default unpooled allocator hands out direct buffers (a malloc, a cleaner and sampled leak records
   * per argument), its pooled one an arena lock off Netty's threads.
   */
  private static final ByteBufAllocator HEAP = new PreferHeapByteBufAllocator(UnpooledByteBufAllocator.DEFAULT);

  @Override
  @SuppressWarnings("rawtypes")
  public Object dispatch(Object connection, Object dispatched) {
    RedisCommand command = (RedisCommand) dispatched;
    // a parked read being resumed was counted and looked at when it was first dispatched
    ReplyTape.Cursor tape = RedisHooks.resumption(command);
    if (tape == null) {
      tape = look(connection, command, connection instanceof StatefulRedisPubSubConnection);
    }
    if (tape == null || tape == ReplyTape.SEND) {
      return null;
    }
    if (tape != ReplyTape.PARKED) {
      replay(command, tape);
    }
    return command;
  }

  @Override
  @SuppressWarnings("rawtypes")
  public void dispatchBatch(Object connection, Collection<?> commands) {
    for (Object command : commands) {
      look(connection, (RedisCommand) command, true);
    }
  }

  @SuppressWarnings("rawtypes")
  private static ReplyTape.Cursor look(Object connection, RedisCommand command, boolean neverServe) {
    CommandArgs args = command.getArgs();
    byte[] name = command.getType().getBytes();
    // GET key, SET key value... recorded as they were added if the agent could (count() tells
    // whether what was recorded is all of the arguments)
    Object recorded = args instanceof EncodedArgsField ? ((EncodedArgsField) args).hotkey$encodedArgs() : null;
    byte[][] argv = null;
    if (recorded instanceof byte[] && args.count() == 1) {
      argv = new byte[][] {name, (byte[]) recorded};
    } else if (recorded instanceof byte[][] && args.count() == 2) {
      byte[][] keyAndValue = (byte[][]) recorded;
      argv = new byte[][] {name, keyAndValue[0], keyAndValue[1]};
    }
    return argv != null
        ? RedisHooks.dispatch("lettuce", connection, command, command.getOutput(), argv, neverServe)
        : lookEncoded(connection, command, args, name, neverServe);
  }

  @SuppressWarnings("rawtypes")
  private static ReplyTape.Cursor lookEncoded(Object connection, RedisCommand command, CommandArgs args, byte[] name,
      boolean neverServe) {
    if (args == null) {
      return RedisHooks.dispatch("lettuce", connection, command, command.getOutput(), name, null, 0, neverServe);
    }
    if (args.count() == 1) {
      // the codec's bytes of the only argument, no wire framing
      ByteBuffer key = args.getFirstEncodedKey();
      if (key != null) {
        return RedisHooks.dispatch("lettuce", connection, command, command.getOutput(), name, key,
            RedisHooks.ONE_RAW_ARGUMENT, neverServe);
      }
    }
    ByteBuf buffer = new UnpooledHeapByteBuf(HEAP, 128, Integer.MAX_VALUE);
    try {
      args.encode(buffer);
      return RedisHooks.dispatch("lettuce", connection, command, command.getOutput(), name, buffer.nioBuffer(),
          args.count(), neverServe);
    } finally {
      buffer.release();
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static void replay(RedisCommand command, ReplyTape.Cursor tape) {
    CommandOutput output = command.getOutput();
    try {
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
            output.multiArray(tape.count());
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
    } catch (Throwable e) {
      command.completeExceptionally(e);
      return;
    }
    command.complete();
  }
}
