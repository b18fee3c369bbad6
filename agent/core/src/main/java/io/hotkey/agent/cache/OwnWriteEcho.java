package io.hotkey.agent.cache;

/**
 * Redis' report of one of the application's own writes, expected by server-assisted invalidation
 * ({@link FillGate#expectEcho}). A report of the key that arrives while the write is in flight is
 * held and applied together with the write's own local invalidation, so that the key's readers keep
 * its entry until then. The write's path settles the expectation exactly once.
 */
public interface OwnWriteEcho {
  /**
   * The write was answered {@code OK}, and its key's local invalidation runs right after this
   * returns, on the same thread: a report held for it is applied now.
   */
  void invalidatingLocally();

  /** The write failed, or its outcome will not be known: its report invalidates as any other. */
  void cancel();
}
