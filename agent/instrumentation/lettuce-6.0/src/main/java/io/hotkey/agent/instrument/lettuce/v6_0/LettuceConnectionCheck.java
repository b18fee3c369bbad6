package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.FailedReadHooks;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;

/**
 * Whether a read dispatched on a Lettuce connection may be answered locally: only when Lettuce
 * would write it to Redis now. A connection the application closed fails it ({@code RedisException:
 * Connection is closed}); one whose channel is down (Redis went away, or Lettuce closed the channel
 * itself, as it does when a codec throws while encoding) buffers it until it has reconnected, or
 * rejects it: a local answer would hide either. Lettuce's endpoint learns that its channel closed
 * one event-loop task after the channel did ({@code notifyChannelInactive}), and a command failed
 * in between wakes the application first, so the channel itself is asked, as {@code
 * DefaultEndpoint.write} asks it. With {@code hotkey.cache.serve-stale-on-error} a connection
 * without a channel stays answerable: that setting answers the reads Redis cannot. A helper class,
 * defined next to Lettuce like {@link LettuceReplay}.
 */
public final class LettuceConnectionCheck {
  /** {@code DefaultEndpoint.channel}, protected: null if this Lettuce hides it. */
  private static final VarHandle ENDPOINT_CHANNEL = endpointChannel();

  /**
   * {@code CommandExpiryWriter} (Lettuce 5.1+), which wraps the endpoint under command timeouts.
   */
  private static final Class<?> EXPIRY_WRITER = expiryWriter();

  /** Its {@code getDelegate()} (6.x, 7.x); null where it has none. */
  private static final MethodHandle EXPIRY_DELEGATE = expiryDelegate();

  private LettuceConnectionCheck() {}

  /** Whether the read {@code connection} is dispatching may be answered without sending it. */
  public static boolean mayAnswerLocally(Object connection) {
    if (!(connection instanceof RedisChannelHandler)) {
      return true;
    }
    RedisChannelHandler<?, ?> handler = (RedisChannelHandler<?, ?>) connection;
    if (handler.isClosed()) {
      return false;
    }
    return hasActiveChannel(handler.getChannelWriter()) || FailedReadHooks.servesStale();
  }

  private static boolean hasActiveChannel(RedisChannelWriter writer) {
    if (EXPIRY_DELEGATE != null && EXPIRY_WRITER.isInstance(writer)) {
      try {
        writer = (RedisChannelWriter) EXPIRY_DELEGATE.invokeExact(writer);
      } catch (Throwable unknown) {
        return false;
      }
    }
    if (!(writer instanceof DefaultEndpoint) || ENDPOINT_CHANNEL == null) {
      // a cluster's or a master/replica's writer picks its node's connection later
      return true;
    }
    DefaultEndpoint endpoint = (DefaultEndpoint) writer;
    Channel channel = (Channel) ENDPOINT_CHANNEL.getVolatile(endpoint);
    return !endpoint.isClosed() && channel != null && channel.isActive();
  }

  private static VarHandle endpointChannel() {
    try {
      return MethodHandles.privateLookupIn(DefaultEndpoint.class, MethodHandles.lookup())
          .findVarHandle(DefaultEndpoint.class, "channel", Channel.class);
    } catch (ReflectiveOperationException | RuntimeException unreadable) {
      return null;
    }
  }

  private static Class<?> expiryWriter() {
    try {
      return Class.forName(
          "io.lettuce.core.protocol.CommandExpiryWriter",
          false,
          LettuceConnectionCheck.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError lettuce50) {
      return null;
    }
  }

  private static MethodHandle expiryDelegate() {
    if (EXPIRY_WRITER == null) {
      return null;
    }
    try {
      return MethodHandles.publicLookup()
          .findVirtual(
              EXPIRY_WRITER, "getDelegate", MethodType.methodType(RedisChannelWriter.class))
          .asType(MethodType.methodType(RedisChannelWriter.class, RedisChannelWriter.class));
    } catch (ReflectiveOperationException | RuntimeException before66) {
      return null;
    }
  }
}
