package io.hotkey.agent.instrument.lettuce.v6;

import java.util.Collection;

/**
 * What the dispatch advice does with a command, behind JDK types: implemented by
 * {@code helper.Dispatcher}, which is compiled against Lettuce and defined next to each loaded copy of
 * it ({@link LettuceHelpers}).
 */
public interface LettuceDispatch {
  /**
   * {@code RedisChannelHandler.dispatch(RedisCommand)}: counts the command, tracks a write and answers
   * a hot read.
   *
   * @return the command when it must not be written (answered locally, or parked to be resumed), else null
   */
  Object dispatch(Object connection, Object command);

  /** {@code dispatch(Collection)}: every command counted and its writes tracked, none answered locally. */
  void dispatchBatch(Object connection, Collection<?> commands);
}
