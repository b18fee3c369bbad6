package io.hotkey.agent.metrics;

import io.hotkey.agent.core.AgentLog;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

/**
 * Exposes {@link AgentMeters} as the MXBean {@code io.hotkey:type=HotkeyAgent}, once the JVM has an
 * MBean server: the agent never creates the platform MBean server itself, whose set-up (every
 * platform MXBean, Flight Recorder's among them) costs a JVM's start more CPU than the agent's own
 * core. Whatever makes one (the application or its framework, a JMX connector started on the
 * command line or by {@code jconsole} or {@code status} attaching) finds the agent's MXBean there
 * within {@link #CHECK_SECONDS} of it.
 */
public final class JmxExporter implements HotkeyAgentMXBean {
  private static final String OBJECT_NAME = "io.hotkey:type=HotkeyAgent";

  /** How often the agent looks for an MBean server until it has registered its MXBean there. */
  private static final long CHECK_SECONDS = 1;

  private final AgentMeters meters;
  private final Supplier<String> reportJson;

  private JmxExporter(AgentMeters meters, Supplier<String> reportJson) {
    this.meters = meters;
    this.reportJson = reportJson;
  }

  /**
   * Runs {@code registration} on {@code scheduler} as soon as the JVM has an MBean server: now if
   * it has one, else at the first of the checks made every {@link #CHECK_SECONDS}.
   */
  public static void registerOnceServerExists(
      ScheduledExecutorService scheduler, Runnable registration) {
    scheduler.execute(
        new Runnable() {
          @Override
          public void run() {
            if (serverExists()) {
              registration.run();
            } else {
              Future<?> unusedCheck = scheduler.schedule(this, CHECK_SECONDS, TimeUnit.SECONDS);
            }
          }
        });
  }

  /**
   * Whether the JVM has an MBean server: the platform one is made through this factory, which lists
   * it without making one. A security manager that forbids the look is taken as a yes, so that the
   * registration is tried (and its failure reported) as it would be without one.
   */
  private static boolean serverExists() {
    try {
      return !MBeanServerFactory.findMBeanServer(null).isEmpty();
    } catch (SecurityException forbidden) {
      return true;
    }
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
