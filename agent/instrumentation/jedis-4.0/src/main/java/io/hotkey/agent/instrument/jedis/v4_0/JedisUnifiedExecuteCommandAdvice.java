package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ServedReply;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import redis.clients.jedis.CommandObject;

/**
 * On {@code UnifiedJedis.executeCommand(CommandObject)}, the synchronous path of the pooled and
 * cluster clients (JedisPooled, RedisClient, JedisCluster, RedisClusterClient). Deciding here,
 * before a connection is borrowed from the pool, keeps a local hit free of pool contention. The
 * client instance is the namespace: all its connections share one configuration (database,
 * protocol). The connection-level advice inside only carries out this decision.
 */
public final class JedisUnifiedExecuteCommandAdvice {
  private JedisUnifiedExecuteCommandAdvice() {}

  @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
  public static ServedReply onEnter(
      @Advice.This Object client, @Advice.Argument(0) CommandObject<?> command) {
    return JedisCommands.beginRead(client, null, command);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(
      @Advice.Enter ServedReply served,
      @Advice.Argument(0) CommandObject<?> command,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
      @Advice.Thrown(readOnly = false) Throwable thrown) {
    if (served != null) {
      result = served.result;
    } else if (thrown != null) {
      ServedReply stale = JedisCommands.staleRead(command, thrown);
      if (stale != null) {
        result = stale.result;
        thrown = null;
      }
    }
    RedisHooks.endRead(thrown != null);
  }
}
