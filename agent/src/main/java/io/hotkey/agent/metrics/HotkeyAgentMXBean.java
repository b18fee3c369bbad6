package io.hotkey.agent.metrics;

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
}
