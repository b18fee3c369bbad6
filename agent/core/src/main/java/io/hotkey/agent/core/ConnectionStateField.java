package io.hotkey.agent.core;

/**
 * A field the agent adds to a client's connection classes as they load (Jedis' {@code Connection},
 * Lettuce's {@code RedisChannelHandler}), holding what a gateway keeps for that connection ({@link
 * PerConnection}): the threads of a pooled client take another connection for most commands, and
 * finding its state is then a field read instead of a lookup in a weak-keyed map, which allocates a
 * lookup key each time. A class loaded before the agent cannot gain a field; its connections stay
 * in the map. Instrumentation implements it, so it sits next to {@link RedisHooks}.
 *
 * <p>Only the agent calls these methods; the names cannot clash with a client's own.
 */
public interface ConnectionStateField {
  /** The field's name in the client's class. */
  String NAME = "hotkey$connectionState";

  Object hotkey$connectionState();

  void hotkey$connectionState(Object state);
}
