package io.hotkey.agent.instrument.jedis.v3_0;

import io.hotkey.agent.core.ConnectionState;
import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.core.ReplyOutcome;
import io.hotkey.agent.core.ServedReply;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What the Jedis 3 advice does, written once. Jedis 3 has no command object: a synchronous method
 * of {@code BinaryJedis} or {@code Jedis} sends its command with {@code Connection.sendCommand},
 * then reads the reply through one of a dozen typed getters that all end in {@code
 * readProtocolWithCheckingBroken}, and converts it. So the first command an outermost API call
 * sends is the one the core decides on; a local answer skips the send and becomes what the next
 * reply read on that connection returns, which Jedis' own getter and conversion then turn into
 * exactly the object it would have built from Redis' reply. Commands sent outside an API call
 * (pipelines, transactions, the connection's own AUTH and SELECT) are only counted.
 *
 * <p>A helper class: never loaded by the agent's loader, defined next to Jedis in each loader that
 * has it ({@link Jedis3InstrumentationModule}), where the inlined advice calls it.
 */
public final class Jedis3Calls {
  /** The client name entries are kept under: Jedis 3's raw replies are its own. */
  private static final String CLIENT = "jedis3";

  // no lambda: a helper is renamed as it is defined, and stays one plain class file
  private static final ThreadLocal<Jedis3Call> CALLS = new ThreadLocal<>();

  private Jedis3Calls() {}

  private static Jedis3Call call() {
    Jedis3Call call = CALLS.get();
    if (call == null) {
      call = new Jedis3Call();
      CALLS.set(call);
    }
    return call;
  }

  /** An API method of {@code BinaryJedis} or {@code Jedis} starts on this thread. */
  public static void enter() {
    call().depth++;
  }

  /** An API method returned or threw; the outermost ends the local read its command began. */
  public static void exit(boolean failed) {
    Jedis3Call call = call();
    if (call.depth == 0 || --call.depth > 0) {
      return;
    }
    boolean readBegun = call.readBegun;
    call.end();
    if (readBegun) {
      RedisHooks.endRead(failed);
    }
  }

  /**
   * A command is about to be sent. Returns true when it is the first of an outermost API call and
   * the core answered it locally: the send is skipped, and the answer waits for the call's reply
   * read.
   */
  public static boolean answeredLocally(
      Object connection, Object socket, ProtocolCommand command, byte[][] arguments) {
    Jedis3Call call = call();
    if (call.depth == 0 || call.decided) {
      return false;
    }
    call.decided = true;
    byte[][] argv = argv(command, arguments);
    call.decidedArguments = arguments;
    call.decidedArgv = argv;
    call.readBegun = true;
    ServedReply served =
        RedisHooks.beginRead(
            CLIENT,
            connection,
            socket != null ? socket : ConnectionState.NOT_CONNECTED,
            arguments,
            argv);
    if (served == null) {
      return false;
    }
    call.served = served;
    call.servedConnection = connection;
    return true;
  }

  /**
   * A command was written (or its send failed, perhaps halfway): reported once the send returns, so
   * that the AUTH and SELECT a lazily connecting {@code Connection} sends from inside it take their
   * places before it.
   */
  public static void sent(
      Object connection,
      Object socket,
      ProtocolCommand command,
      byte[][] arguments,
      boolean failed) {
    Jedis3Call call = call();
    byte[][] argv =
        call.decidedArguments == arguments ? call.decidedArgv : argv(command, arguments);
    RedisHooks.onSend(connection, socket, arguments, argv);
    if (failed) {
      RedisHooks.onSendFailed(connection);
    }
  }

  /**
   * A reply is about to be read from {@code connection}: the local answer waiting for it, or null
   * to read it from Redis.
   */
  public static ServedReply servedReply(Object connection) {
    Jedis3Call call = call();
    ServedReply served = call.served;
    if (served == null || call.servedConnection != connection) {
      return null;
    }
    call.served = null;
    call.servedConnection = null;
    return served;
  }

  /**
   * A reply was read from Redis, pipelined and transactional ones included. An error reply is a
   * normal reply; anything else thrown means the connection is lost with its in-flight commands.
   */
  public static void replyRead(Object connection, Object raw, Throwable thrown) {
    if (thrown == null) {
      RedisHooks.onReplyRead(connection, ReplyOutcome.VALUE);
      if (call().readBegun) {
        RedisHooks.onRawReply(raw);
      }
    } else {
      RedisHooks.onReplyRead(
          connection,
          thrown instanceof JedisDataException ? ReplyOutcome.ERROR : ReplyOutcome.CONNECTION_LOST);
    }
  }

  /** The command as Redis sees it: its name, then its arguments. */
  private static byte[][] argv(ProtocolCommand command, byte[][] arguments) {
    byte[][] argv = new byte[arguments.length + 1][];
    argv[0] = command.getRaw();
    System.arraycopy(arguments, 0, argv, 1, arguments.length);
    return argv;
  }
}
