package io.hotkey.agent.metrics;

import java.util.Map;

/** JMX view of the agent, MBean {@code io.hotkey:type=HotkeyAgent}; always registered. */
public interface HotkeyAgentMXBean {
  long getCommands();

  long getCacheHits();

  long getCacheMisses();

  long getCacheEvictions();

  long getCacheBytes();

  long getHotKeyCount();

  long getAgentErrors();

  String[] getHotKeys();

  /** Idempotency outcomes by name; empty when no route is configured. */
  Map<String, Long> getIdempotencyOutcomes();

  /**
   * The whole state as the HTTP endpoint's {@code /api/hotkeys} JSON; what {@code java -jar
   * hotkey-agent.jar status <pid>} reads. The first read starts the once-a-second sampler, so its
   * per-second figures are null.
   */
  String getReportJson();
}
