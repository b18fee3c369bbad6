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
}
