package io.hotkey.agent.cache;

/**
 * Redis' report of one of the application's own writes, expected by server-assisted invalidation
 * ({@link FillGate#expectEcho}). The write already invalidates its key locally when its reply is
 * read; once it has, the first report of the key that follows is redundant and is not applied, so a
 * fill started after the write keeps its entry. The write's path settles the expectation exactly
 * once.
 */
public interface OwnWriteEcho {
  /** The write was answered {@code OK} and its key's local invalidation has run. */
  void invalidatedLocally();

  /** The write failed, or its outcome will not be known: its report invalidates as any other. */
  void cancel();
}
