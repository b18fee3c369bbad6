package io.hotkey.agent.core;

/**
 * The only entry points instrumentation advice calls. Each one is a no-op until the agent is
 * active, and none lets a failure escape: the client's own code then runs exactly as without the
 * agent. Parameters are client-neutral so advice can live in any class loader that sees this class.
 */
public final class RedisHooks {
  private static volatile RedisGateway gateway;

  private RedisHooks() {}

  public static void activate(RedisGateway active) {
    gateway = active;
  }

  public static void onSend(Object connection, Object arguments, byte[][] argv) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onSend(connection, arguments, argv);
    } catch (Throwable t) {
      g.errors().record("command send", t);
    }
  }

  public static void onSendFailed() {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onSendFailed();
    } catch (Throwable t) {
      g.errors().record("failed send", t);
    }
  }

  public static void onReplyRead(boolean failed) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onReplyRead(failed);
    } catch (Throwable t) {
      g.errors().record("reply read", t);
    }
  }

  public static ServedReply beginRead(String client, Object connection, Object endpointSource, Object arguments,
      byte[][] argv) {
    RedisGateway g = gateway;
    if (g == null) {
      return null;
    }
    try {
      return g.beginRead(client, connection, endpointSource, arguments, argv);
    } catch (Throwable t) {
      g.errors().record("local read", t);
      return null;
    }
  }

  public static void onRawReply(Object raw) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.onRawReply(raw);
    } catch (Throwable t) {
      g.errors().record("reply capture", t);
    }
  }

  public static void endRead(boolean failed) {
    RedisGateway g = gateway;
    if (g == null) {
      return;
    }
    try {
      g.endRead(failed);
    } catch (Throwable t) {
      g.errors().record("cache fill", t);
    }
  }

  /** The adapter could not decode a locally served reply; the command runs against Redis instead. */
  public static void servedReplyRejected(Throwable cause) {
    RedisGateway g = gateway;
    if (g != null) {
      g.errors().record("decoding a local reply", cause);
    }
  }
}
