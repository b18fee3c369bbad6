package io.hotkey.agent.metrics;

import io.hotkey.agent.core.AgentLog;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.ObjectName;

/** Exposes {@link AgentMeters} as the MXBean {@code io.hotkey:type=HotkeyAgent}. */
public final class JmxExporter implements HotkeyAgentMXBean {
  private static final String OBJECT_NAME = "io.hotkey:type=HotkeyAgent";

  private final AgentMeters meters;
  private final Supplier<String> reportJson;

  private JmxExporter(AgentMeters meters, Supplier<String> reportJson) {
    this.meters = meters;
    this.reportJson = reportJson;
  }

  /**
   * Registers the agent's MXBean, replacing one an earlier start left.
   *
   * @param reportJson the agent's state as JSON ({@code /api/hotkeys}), made when asked
   */
  public static void register(AgentMeters meters, Supplier<String> reportJson) throws Exception {
    ObjectName name = new ObjectName(OBJECT_NAME);
    var server = ManagementFactory.getPlatformMBeanServer();
    if (server.isRegistered(name)) {
      server.unregisterMBean(name);
    }
    server.registerMBean(new JmxExporter(meters, reportJson), name);
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
  public long getCacheRefreshes() {
    return meters.cacheRefreshes();
  }

  @Override
  public long getCacheStaleServed() {
    return meters.cacheStaleServed();
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
  public String[] getWriteHotKeys() {
    return meters.writeHotKeys().toArray(new String[0]);
  }

  @Override
  public String[] getFleetHotKeys() {
    return meters.fleetHotKeys().stream()
        .map(key -> AgentLog.printable(key.key()))
        .toArray(String[]::new);
  }

  @Override
  public Map<String, Long> getIdempotencyOutcomes() {
    return meters.idempotencyOutcomes();
  }

  @Override
  public String getReportJson() {
    return reportJson.get();
  }

  @Override
  public long getInvalidationsReceived() {
    return meters.invalidationsReceived();
  }

  @Override
  public long getFanOutDemotions() {
    return meters.fanOutDemotions();
  }

  @Override
  public long getHeldInvalidations() {
    return meters.heldInvalidations();
  }

  @Override
  public long getHelpedInvalidations() {
    return meters.helpedInvalidations();
  }

  @Override
  public long getInvalidationBypasses() {
    return meters.invalidationBypasses();
  }

  @Override
  public Map<String, Long> getCacheFlushes() {
    return meters.cacheFlushes();
  }

  @Override
  public String[] getTrackingServers() {
    return meters.trackingServers().toArray(new String[0]);
  }
}
