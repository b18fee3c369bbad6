package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.text;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The Sentinel app: a hot key behind a sentinel, written by another process, expired, failed over.
 */
public final class SentinelResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("sentinel");

  /** Reads made while the master's {@code GET} calls were counted. */
  public static final ResultName<Long> COUNTED_READS = number("sentinel.countedReads");

  /** Of those, the ones the agent answered locally. */
  public static final ResultName<Long> COUNTED_HITS = number("sentinel.countedHits");

  /** {@code GET} calls the master took meanwhile (INFO commandstats). */
  public static final ResultName<Long> MASTER_GETS = number("sentinel.masterGets");

  /**
   * Of the writes another process made to the master ({@code before} or {@code after} the
   * failover), the longest from a write's acknowledgement until a read got it, in µs.
   */
  public static ResultName<Long> writeSeenMicros(String phase) {
    return number("sentinel." + phase + ".writeSeenMicros");
  }

  /** Writes another process made in {@code phase}. */
  public static ResultName<Long> writes(String phase) {
    return number("sentinel." + phase + ".writes");
  }

  /** Reads in {@code phase} the agent answered locally. */
  public static ResultName<Long> hits(String phase) {
    return number("sentinel." + phase + ".hits");
  }

  /** {@code OBJECT IDLETIME} on the master after its key was served for a while, {@code phase}. */
  public static ResultName<Long> idleWhileServed(String phase) {
    return number("sentinel." + phase + ".idleWhileServed");
  }

  /** {@code TOUCH} calls the master took while its key was served, {@code phase}. */
  public static ResultName<Long> masterTouches(String phase) {
    return number("sentinel." + phase + ".masterTouches");
  }

  /** The master ({@code host:port}) {@code before} or {@code after} the failover. */
  public static ResultName<String> master(String phase) {
    return text("sentinel." + phase + ".master");
  }

  /** What the agent's MBean lists as tracked servers ({@code host:port state}), {@code phase}. */
  public static ResultName<List<String>> trackingServers(String phase) {
    return texts("sentinel." + phase + ".trackingServers");
  }

  /** Reads before the key's TTL that the agent answered locally. */
  public static final ResultName<Long> TTL_HITS = number("sentinel.ttl.hits");

  /** How late after its TTL a read still got the key's value, in µs (0: never). */
  public static final ResultName<Long> TTL_LATE_MICROS = number("sentinel.ttl.lateMicros");

  /** {@code PTTL} calls the master took from the key's fills after it got its TTL. */
  public static final ResultName<Long> MASTER_PTTLS = number("sentinel.ttl.masterPttls");

  /** Reads during the failover that returned a value older than the last acknowledged write. */
  public static final ResultName<Long> FAILOVER_OLDER_READS =
      number("sentinel.failover.olderReads");

  /** Reads during the failover that failed (the client's own errors while the master moves). */
  public static final ResultName<Long> FAILOVER_FAILED_READS =
      number("sentinel.failover.failedReads");

  /** How long the failover took, from {@code SENTINEL FAILOVER} until the old master replicates. */
  public static final ResultName<Long> FAILOVER_MILLIS = number("sentinel.failover.millis");

  private SentinelResults() {}
}
