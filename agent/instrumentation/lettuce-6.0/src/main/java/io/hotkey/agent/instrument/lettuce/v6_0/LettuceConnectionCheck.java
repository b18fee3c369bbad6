package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.FailedReadHooks;
import io.hotkey.agent.core.multiplexed.LocalAnswerCheck;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import java.lang.invoke.MethodHandles;
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
public final class LettuceConnectionCheck implements LocalAnswerCheck {
  public static final LettuceConnectionCheck INSTANCE = new LettuceConnectionCheck();

  /** {@code DefaultEndpoint.channel}, protected: null if this Lettuce hides it. */
  private static final VarHandle ENDPOINT_CHANNEL =
      field(DefaultEndpoint.class, "channel", Channel.class);

  /**
   * {@code CommandExpiryWriter} (Lettuce 5.1+, and Lettuce 7's maintenance-aware subclass), which
   * wraps the endpoint under command timeouts (on by default from 6.5); null before 5.1.
   */
  private static final Class<?> EXPIRY_WRITER = writerClass("protocol.CommandExpiryWriter");

  /** The writer it wraps: its field {@code writer} up to 6.1.0, {@code delegate} since. */
  private static final VarHandle EXPIRY_DELEGATE = delegateOf(EXPIRY_WRITER);

  /** {@code CommandListenerWriter} (6.1+), outermost when the application adds a listener. */
  private static final Class<?> LISTENER_WRITER = writerClass("CommandListenerWriter");

  private static final VarHandle LISTENER_DELEGATE = delegateOf(LISTENER_WRITER);

  private LettuceConnectionCheck() {}

  @Override
  public boolean mayAnswerLocally(Object connection) {
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
    // a listener's writer wraps the expiry writer, which wraps the endpoint
    for (int wrappers = 0; wrappers < 3; wrappers++) {
      if (LISTENER_DELEGATE != null && LISTENER_WRITER.isInstance(writer)) {
        writer = (RedisChannelWriter) LISTENER_DELEGATE.get(writer);
      } else if (EXPIRY_DELEGATE != null && EXPIRY_WRITER.isInstance(writer)) {
        writer = (RedisChannelWriter) EXPIRY_DELEGATE.get(writer);
      } else {
        break;
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

  private static Class<?> writerClass(String name) {
    try {
      return Class.forName(
          "io.lettuce.core." + name, false, LettuceConnectionCheck.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError olderLettuce) {
      return null;
    }
  }

  /** The wrapper's field holding the writer it wraps, by either name it has had. */
  private static VarHandle delegateOf(Class<?> wrapper) {
    if (wrapper == null) {
      return null;
    }
    VarHandle delegate = field(wrapper, "delegate", RedisChannelWriter.class);
    return delegate != null ? delegate : field(wrapper, "writer", RedisChannelWriter.class);
  }

  private static VarHandle field(Class<?> owner, String name, Class<?> type) {
    try {
      return MethodHandles.privateLookupIn(owner, MethodHandles.lookup())
          .findVarHandle(owner, name, type);
    } catch (ReflectiveOperationException | RuntimeException unreadable) {
      return null;
    }
  }
}
