package io.hotkey.agent.instrument.jedis.v4_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ServedReply;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * What the Jedis 4+ advice does with a command, written once. A helper class: never loaded by the
 * agent's loader, defined next to Jedis in each loader that has it ({@link
 * Jedis4InstrumentationModule}), where the inlined advice calls it.
 */
public final class JedisCommands {
  private JedisCommands() {}

  /** The command as Redis sees it: its name, then its arguments. */
  public static byte[][] argv(CommandArguments arguments) {
    byte[][] argv = new byte[arguments.size()][];
    int i = 0;
    for (Rawable argument : arguments) {
      argv[i++] = argument.getRaw();
    }
    return argv;
  }

  /**
   * A read that failed on its connection (Jedis' connection errors include timeouts): answered from
   * its key's last value when {@code hotkey.cache.serve-stale-on-error} allows, built by the
   * command's own {@code Builder}; else null and the failure goes on.
   */
  public static ServedReply staleRead(CommandObject<?> command, Throwable failure) {
    if (!(failure instanceof JedisConnectionException)) {
      return null;
    }
    ServedReply stale = RedisHooks.staleRead(failure);
    if (stale != null) {
      try {
        stale.result = command.getBuilder().build(stale.raw);
      } catch (RuntimeException e) {
        RedisHooks.servedReplyRejected(e);
        return null;
      }
    }
    return stale;
  }

  /**
   * A synchronous read: answered locally when the core has the reply, which then goes through the
   * command's own {@code Builder}, so the application gets exactly the type and value Jedis would
   * have built from Redis' reply.
   *
   * @param namespace the connection, or the pooled client whose connections all share one
   *     configuration
   * @param socket the connection's socket ({@link
   *     io.hotkey.agent.core.ConnectionState#NOT_CONNECTED} before it has one), or null for a
   *     pooled client
   * @return the served reply with its built result, or null: the command goes to Redis
   */
  public static ServedReply beginRead(Object namespace, Object socket, CommandObject<?> command) {
    CommandArguments arguments = command.getArguments();
    ServedReply served =
        RedisHooks.beginRead("jedis", namespace, socket, arguments, argv(arguments));
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
}
