package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ServedReply;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.args.Rawable;

/**
 * On {@code Connection.executeCommand(CommandObject)}, the synchronous path of the classic {@code
 * Jedis} API (and, inside them, of the pooled clients). A locally served read skips the method: the
 * cached raw reply goes through the command's own {@code Builder}, so the application gets exactly
 * the type and value Jedis would have built from Redis' reply. Pipelines and transactions never
 * come here.
 */
public final class JedisExecuteCommandAdvice {
  private JedisExecuteCommandAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static ServedReply onEnter(
      @Advice.This Object connection,
      @Advice.FieldValue("socket") Object socket,
      @Advice.Argument(0) CommandObject<?> command) {
    CommandArguments arguments = command.getArguments();
    byte[][] argv = new byte[arguments.size()][];
    int i = 0;
    for (Rawable argument : arguments) {
      argv[i++] = argument.getRaw();
    }
    ServedReply served = RedisHooks.beginRead("jedis", connection, socket, arguments, argv);
    if (served != null) {
      try {
        served.result = command.getBuilder().build(served.raw);
      } catch (RuntimeException e) {
        RedisHooks.servedReplyRejected(e);
        return null;
      }
    }
    return served;
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter ServedReply served,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
      @Advice.Thrown Throwable thrown) {
    if (served != null) {
      result = served.result;
    }
    RedisHooks.endRead(thrown != null);
  }
}
