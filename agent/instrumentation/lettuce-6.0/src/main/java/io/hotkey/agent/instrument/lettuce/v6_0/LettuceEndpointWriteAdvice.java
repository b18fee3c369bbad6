package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.Channel;
import java.util.Collection;
import java.util.Collections;
import net.bytebuddy.asm.Advice;

/**
 * On {@code DefaultEndpoint.write(RedisCommand)} and {@code write(Collection)}: a command written
 * straight to a connection's {@code RedisChannelWriter} never passed {@code
 * RedisChannelHandler.dispatch}, so it is counted and invalidates here, on behalf of the connection
 * the endpoint serves, and is never answered locally. A dispatched command carries {@link
 * EncodedArgsField#DISPATCHED} and costs this hook one field read; a fill or a plain SET of a hot
 * key carries {@link EncodedArgsField#REPORTS_SERVER}, and its server (as the channel's handshake
 * described it, {@link LettuceLogins#server}) is reported. Commands without arguments, and those
 * built before the agent attached (their arguments have no field to carry the mark), are not told
 * apart here and are left to the dispatch hook; their server is reported too, and the gateway looks
 * them up among the commands it tracks.
 */
public final class LettuceEndpointWriteAdvice {
  private LettuceEndpointWriteAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  @SuppressWarnings("rawtypes")
  public static void onEnter(
      @Advice.This Object endpoint,
      @Advice.FieldValue("connectionFacade") Object facade,
      @Advice.FieldValue("channel") Channel channel,
      @Advice.Argument(0) Object written) {
    if (!RedisHooks.active()) {
      return;
    }
    if (!(written instanceof Collection)) {
      // the common case, a dispatched command, returns here without allocating
      CommandArgs single = ((RedisCommand) written).getArgs();
      if (!(single instanceof EncodedArgsField)) {
        // built before the agent attached: no mark tells a fill apart, so the gateway looks it up
        RedisHooks.writtenTo(((RedisCommand) written).getOutput(), LettuceLogins.server(channel));
        return;
      }
      Object mark = ((EncodedArgsField) single).hotkey$encodedArgs();
      if (mark == EncodedArgsField.DISPATCHED) {
        return;
      }
      if (mark == EncodedArgsField.REPORTS_SERVER) {
        RedisHooks.writtenTo(((RedisCommand) written).getOutput(), LettuceLogins.server(channel));
        return;
      }
    }
    Collection<?> commands =
        written instanceof Collection ? (Collection<?>) written : Collections.singleton(written);
    for (Object element : commands) {
      RedisCommand command = (RedisCommand) element;
      CommandArgs args = command.getArgs();
      if (!(args instanceof EncodedArgsField)) {
        RedisHooks.writtenTo(command.getOutput(), LettuceLogins.server(channel));
        continue;
      }
      Object mark = ((EncodedArgsField) args).hotkey$encodedArgs();
      if (mark == EncodedArgsField.REPORTS_SERVER) {
        RedisHooks.writtenTo(command.getOutput(), LettuceLogins.server(channel));
      }
      if (mark == EncodedArgsField.DISPATCHED || mark == EncodedArgsField.REPORTS_SERVER) {
        continue;
      }
      ((EncodedArgsField) args).hotkey$encodedArgs(EncodedArgsField.DISPATCHED);
      LettuceArguments.dispatchUnserved(facade != null ? facade : endpoint, command);
    }
  }
}
