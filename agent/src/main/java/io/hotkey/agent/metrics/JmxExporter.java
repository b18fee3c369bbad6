package io.hotkey.agent.metrics;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.ObjectName;

/** Exposes {@link AgentMeters} as the MXBean {@code io.hotkey:type=HotkeyAgent}. */
public final class JmxExporter implements HotkeyAgentMXBean {
  private static final String OBJECT_NAME = "io.hotkey:type=HotkeyAgent";

  private final AgentMeters meters;

  private JmxExporter(AgentMeters meters) {
    this.meters = meters;
  }

  public static void register(AgentMeters meters) throws Exception {
    ObjectName name = new ObjectName(OBJECT_NAME);
    var server = ManagementFactory.getPlatformMBeanServer();
    if (server.isRegistered(name)) {
      server.unregisterMBean(name);
    }
    server.registerMBean(new JmxExporter(meters), name);
  }

  @Override
  public long getCommands() {
    return meters.readCommands() + meters.writeCommands();
  }

  @Override
  public long getCacheHits() {
    return meters.cacheHits();
  }

  @Override
  public long getCacheMisses() {
    return meters.cacheMisses();
  }

  @Override
  public long getCacheEvictions() {
    return meters.cacheEvictions();
  }

  @Override
  public long getCacheBytes() {
    return meters.cacheBytes();
  }

  @Override
  public long getHotKeyCount() {
    return meters.hotKeys().size();
  }

  @Override
  public long getAgentErrors() {
    return meters.agentErrors();
  }

  @Override
  public String[] getHotKeys() {
    return meters.hotKeys().toArray(new String[0]);
  }

  @Override
  public Map<String, Long> getIdempotencyOutcomes() {
    return meters.idempotencyOutcomes();
  }
}
