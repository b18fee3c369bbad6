package io.hotkey.agent.cache;

/**
 * Redis' report of one of the application's own writes, expected by server-assisted invalidation
 * ({@link FillGate#expectEcho}). The write invalidates its key locally when its reply is read; a
 * report that arrived before that invalidation is redundant and is not applied, so the fill that
 * the key's next reader starts after the write keeps its entry. The write's path settles the
 * expectation exactly once.
 */
public interface OwnWriteEcho {
  /**
   * The write was answered {@code OK}, and its key's local invalidation runs right after this
   * returns, on the same thread.
   */
  void invalidatingLocally();

  /** The write failed, or its outcome will not be known: its report invalidates as any other. */
  void cancel();
}
