package io.hotkey.agent.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.Function;

/**
 * What a gateway keeps for each client connection, created at the connection's first command and
 * kept as long as the connection is reachable. A connection whose class has the agent's {@link
 * ConnectionStateField} holds its state itself; any other is found by identity in a weak-keyed map.
 * The map also decides which state a new connection gets when two threads see it first at once, and
 * the field then caches that answer, so both ways give one state per connection.
 *
 * @param <T> the state
 */
public final class PerConnection<T> {
  private final Cache<Object, T> byIdentity = Caffeine.newBuilder().weakKeys().build();
  private final Function<Object, T> create;

  /**
   * @param create makes the state of a connection seen for the first time, given the connection
   */
  public PerConnection(Function<Object, T> create) {
    this.create = create;
  }

  /** The connection's state, created if it has none yet. */
  public T get(Object connection) {
    T held = held(connection);
    if (held != null) {
      return held;
    }
    held = byIdentity.get(connection, create);
    if (connection instanceof ConnectionStateField) {
      ((ConnectionStateField) connection).hotkey$connectionState(held);
    }
    return held;
  }

  /** The connection's state, or null if it sent nothing the agent saw. */
  public T getIfPresent(Object connection) {
    T held = held(connection);
    return held != null ? held : byIdentity.getIfPresent(connection);
  }

  /**
   * The state the connection holds in its own field, or null (no field, or none yet): a read of one
   * field, cheaper than any lookup by the calling thread.
   */
  @SuppressWarnings("unchecked") // only get writes the field, and only with the map's value
  public T held(Object connection) {
    return connection instanceof ConnectionStateField
        ? (T) ((ConnectionStateField) connection).hotkey$connectionState()
        : null;
  }
}
