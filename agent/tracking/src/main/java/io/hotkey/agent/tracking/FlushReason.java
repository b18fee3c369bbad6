package io.hotkey.agent.tracking;

/** Why every local entry was dropped at once. */
public enum FlushReason {
  /**
   * A tracking connection broke, stopped answering PING, or its invalidation stream did: some
   * writes may be unreported.
   */
  TRACKING_LOST,
  /**
   * The server reported a flush (FLUSHALL, FLUSHDB, or anything after which every key may have
   * changed).
   */
  SERVER_FLUSH
}
