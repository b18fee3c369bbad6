package io.hotkey.agent.cache;

import io.hotkey.agent.redis.resp.RedisEndpoint;

/**
 * Asks Redis how long a new entry's keys have left to live, on the agent's own connection to the
 * server the entry was read from (never the application's), so that no entry is served past its
 * key's TTL.
 */
public interface RemainingTtls {
  /** A key without a TTL, as {@code PTTL} answers it. */
  long NO_TTL = -1;

  /** A key that no longer exists, as {@code PTTL} answers it. */
  long MISSING = -2;

  /**
   * Queues the question; the answer reaches {@code answer} on the agent's thread.
   *
   * @param node the server the entry was read from, or null when the client could not tell
   * @param database the database the keys were read in
   * @return false when the question cannot be asked (the server is unknown, or failed to answer
   *     within the last second): the entry must not be stored
   */
  boolean ask(RedisEndpoint node, int database, byte[][] keys, Answer answer);

  /** What the server said about one entry's keys. */
  interface Answer {
    /**
     * The server's answer for every key of the question.
     *
     * @param sentAtNanos when the question was sent ({@link System#nanoTime}): the TTL is counted
     *     from there, so the time the answer took is counted against the entry
     * @param leastRemainingMillis the shortest TTL among the keys, {@link #NO_TTL} when none has
     *     one, or {@link #MISSING} when one is gone
     */
    void answered(long sentAtNanos, long leastRemainingMillis);

    /** The question will get no answer (the connection broke, the server refused the command). */
    void unanswered();
  }
}
