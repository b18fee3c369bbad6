package io.hotkey.demo.load;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * What the agent currently considers hot, read through JMX as any operator would; the demo has no
 * compile-time link to the agent, so this is the only way it learns about it.
 */
public final class AgentHotKeys {

  private static final ObjectName AGENT_MBEAN = agentMBeanName();

  private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

  /** The promoted keys, or empty when no agent has registered its MBean in this JVM. */
  public Optional<List<String>> current() {
    if (!mbeans.isRegistered(AGENT_MBEAN)) {
      return Optional.empty();
    }
    try {
      String[] keys = (String[]) mbeans.getAttribute(AGENT_MBEAN, "HotKeys");
      return Optional.of(keys == null ? List.of() : List.of(keys));
    } catch (JMException | ClassCastException e) {
      // The MBean went away between the two calls or does not follow the contract: report it as
      // absent.
      return Optional.empty();
    }
  }

  private static ObjectName agentMBeanName() {
    try {
      return new ObjectName("io.hotkey:type=HotkeyAgent");
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }
}
