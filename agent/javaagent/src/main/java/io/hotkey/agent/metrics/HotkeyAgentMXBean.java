package io.hotkey.agent.metrics;

import java.util.Map;

/** JMX view of the agent, MBean {@code io.hotkey:type=HotkeyAgent}; always registered. */
public interface HotkeyAgentMXBean {
  long getCommands();

  long getCacheHits();

  long getCacheMisses();

  long getCacheEvictions();

  /** Reads that refreshed an entry ahead of its expiry ({@code hotkey.cache.refresh-ahead}). */
  long getCacheRefreshes();

  /** Failed reads answered with a stale value ({@code hotkey.cache.serve-stale-on-error}). */
  long getCacheStaleServed();

  long getCacheBytes();

  long getHotKeyCount();

  long getAgentErrors();

  String[] getHotKeys();

  /** Keys hot across the fleet (by the shared aggregate), as printed in the logs without quotes. */
  String[] getFleetHotKeys();

  /** Hot keys written at hotkey.detect.write-threshold or more, which are never served locally. */
  String[] getWriteHotKeys();

  /** Idempotency outcomes by name; empty when no route is configured. */
  Map<String, Long> getIdempotencyOutcomes();

  /**
   * The whole state as the HTTP endpoint's {@code /api/hotkeys} JSON; what {@code java -jar
   * hotkey-agent.jar status <pid>} reads. The first read starts the once-a-second sampler, so its
   * per-second figures are null.
   */
  String getReportJson();

  /**
   * Served keys that stopped being served and tracked for a cool-down, their invalidations received
   * outweighing their reads here.
   */
  long getFanOutDemotions();

  /** Keys the servers reported changed through client tracking. */
  long getInvalidationsReceived();

  /**
   * Of those, reports of keys this JVM was writing, held while the write was in flight and applied
   * with its own invalidation.
   */
  long getHeldInvalidations();

  /**
   * Messages of the tracking connections (reports, replies to its pings) read and applied by
   * threads about to serve a hit, the connection's reader not having run for 1 ms.
   */
  long getHelpedInvalidations();

  /**
   * Reads of hot keys sent to Redis because another thread was reading an overdue tracking
   * connection.
   */
  long getInvalidationBypasses();

  /** Times every local entry was dropped at once, by reason (tracking_lost, server_flush). */
  Map<String, Long> getCacheFlushes();

  /**
   * One line per tracked server: {@code host:port state (how invalidations arrive, or why not)}.
   */
  String[] getTrackingServers();
}
