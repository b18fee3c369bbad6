package io.hotkey.agent.instrument.jedis.common;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ReplyOutcome;
import net.bytebuddy.asm.Advice;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * On {@code Connection.readProtocolWithCheckingBroken()} (Jedis 4 to 8; Jedis 3 has its own): every
 * reply read, pipelined and transactional ones included. An error reply is a normal reply; anything
 * else thrown means the connection is lost with its in-flight commands.
 */
public final class JedisReplyReadAdvice {
  private JedisReplyReadAdvice() {}

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  public static void onExit(@Advice.This Object connection, @Advice.Thrown Throwable thrown) {
    RedisHooks.onReplyRead(
        connection,
        thrown == null
            ? ReplyOutcome.VALUE
            : thrown instanceof JedisDataException
                ? ReplyOutcome.ERROR
                : ReplyOutcome.CONNECTION_LOST);
  }
}
