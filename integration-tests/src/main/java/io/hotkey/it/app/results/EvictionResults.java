package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The eviction app: a cache-aside hot key under a small maxmemory while cold keys churn. */
public final class EvictionResults {
  /** Times the reader found the hot key gone from Redis and set it again. */
  public static final ResultName<Long> RELOADS = number("eviction.reloads");

  /** Reads of the hot key. */
  public static final ResultName<Long> READS = number("eviction.reads");

  /** Reads answered by the agent's cache (JMX CacheHits); -1 without the agent. */
  public static final ResultName<Long> HITS = number("eviction.hits");

  /**
   * Cold keys the hot key's node evicted during the run ({@code INFO stats evicted_keys}): the
   * server's, on a standalone one.
   */
  public static final ResultName<Long> EVICTED = number("eviction.evictedKeys");

  /** Nodes that evicted keys during the run: every master, when the cold keys spread over them. */
  public static final ResultName<Long> EVICTING_NODES = number("eviction.evictingNodes");

  /** {@code OBJECT IDLETIME} of the hot key at the end, in seconds; -1 under an LFU policy. */
  public static final ResultName<Long> IDLE_SECONDS = number("eviction.idleSeconds");

  /** {@code OBJECT FREQ} of the hot key once it was hot; -1 under an LRU policy. */
  public static final ResultName<Long> FREQ_START = number("eviction.freqStart");

  /** {@code OBJECT FREQ} of the hot key at the end; -1 under an LRU policy. */
  public static final ResultName<Long> FREQ_END = number("eviction.freqEnd");

  /** Seconds the run lasted after the key was hot. */
  public static final ResultName<Long> SECONDS = number("eviction.seconds");

  private EvictionResults() {}
}
