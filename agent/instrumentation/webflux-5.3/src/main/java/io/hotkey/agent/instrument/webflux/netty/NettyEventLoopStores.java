package io.hotkey.agent.instrument.webflux.netty;

import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.AsyncRecordStore;
import io.hotkey.agent.instrument.webflux.EventLoopStores;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The helpers' entry point, defined next to the application's Netty by {@code WebFluxBridge}: one
 * {@link EventLoopRedis} per event loop of the server and per store, made when a request first
 * needs it on that loop.
 */
public final class NettyEventLoopStores implements EventLoopStores {
  /** How long a Redis that could not be reached fails commands at once, as the blocking client. */
  private static final long DOWN_MILLIS = 50;

  private volatile LoopConnections current;

  @Override
  public AsyncRecordStore forRequest(
      Object nativeRequest, RedisRecordStore store, Executor blockingCalls) {
    RedisEndpoint endpoint = store.endpoint();
    if (endpoint.tls() || endpoint.hasCredentials() || endpoint.database() != 0) {
      return null;
    }
    Channel served = channelOf(nativeRequest);
    Class<? extends Channel> socketType = served == null ? null : socketType(served);
    if (socketType == null) {
      return null;
    }
    LoopConnections connections = connectionsTo(store);
    return connections.byLoop.computeIfAbsent(
        served.eventLoop(),
        loop -> {
          EventLoopRedis redis =
              new EventLoopRedis(
                  loop,
                  socketType,
                  endpoint.host(),
                  endpoint.port(),
                  store.connectTimeout().toMillis(),
                  store.readTimeout().toMillis(),
                  DOWN_MILLIS,
                  blockingCalls);
          connections.opened.add(redis);
          return store.over(redis, blockingCalls);
        });
  }

  /** The connections to {@code store}; those of a store the agent no longer uses are closed. */
  private LoopConnections connectionsTo(RedisRecordStore store) {
    LoopConnections connections = current;
    if (connections != null && connections.store == store) {
      return connections;
    }
    synchronized (this) {
      if (current == null || current.store != store) {
        if (current != null) {
          current.opened.forEach(EventLoopRedis::close);
        }
        current = new LoopConnections(store);
      }
      return current;
    }
  }

  /**
   * Reactor Netty's {@code Connection.channel()} for each class of native request, found by name in
   * the request's loader (so that only Netty is linked); {@link #NOT_A_CONNECTION} for a class that
   * is not one.
   */
  private static final Map<Class<?>, Object> CHANNEL_OF = new ConcurrentHashMap<>();

  private static final Object NOT_A_CONNECTION = new Object();

  private static Object channelMethod(Class<?> requestType) {
    try {
      Class<?> connection = Class.forName(CONNECTION, false, requestType.getClassLoader());
      if (!connection.isAssignableFrom(requestType)) {
        return NOT_A_CONNECTION;
      }
      return MethodHandles.publicLookup()
          .findVirtual(connection, "channel", MethodType.methodType(Channel.class));
    } catch (ReflectiveOperationException | LinkageError e) {
      return NOT_A_CONNECTION;
    }
  }

  private static final String CONNECTION = "reactor.netty.Connection";

  /** The channel a Reactor Netty request came on, or null. */
  private static Channel channelOf(Object nativeRequest) {
    Object channel =
        CHANNEL_OF.computeIfAbsent(nativeRequest.getClass(), NettyEventLoopStores::channelMethod);
    if (channel == NOT_A_CONNECTION) {
      return null;
    }
    try {
      return (Channel) ((MethodHandle) channel).invoke(nativeRequest);
    } catch (Throwable t) {
      throw new IllegalStateException("reading the request's channel", t);
    }
  }

  /**
   * The class of the TCP connection a request came on (an HTTP/2 stream's parent's), whose no-arg
   * constructor makes a client socket for the same loop; null when there is none.
   */
  private static Class<? extends Channel> socketType(Channel served) {
    for (Channel channel = served; channel != null; channel = channel.parent()) {
      if (channel instanceof SocketChannel) {
        try {
          return channel.getClass().getConstructor().getDeclaringClass();
        } catch (NoSuchMethodException e) {
          return null;
        }
      }
    }
    return null;
  }
}
