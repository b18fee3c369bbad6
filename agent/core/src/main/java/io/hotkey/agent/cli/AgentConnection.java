package io.hotkey.agent.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The agent's MBean in another JVM of this user, reached through the JDK's attach API and the JVM's
 * local JMX connector: no port to configure, nothing to open.
 */
final class AgentConnection implements AutoCloseable {
  private static final ObjectName MBEAN = mbeanName();

  /**
   * How long a new connection waits for the agent's MXBean: the agent registers it within a second
   * of the JVM's MBean server appearing, which starting the local management agent may have just
   * done.
   */
  private static final long MBEAN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(3);

  private static final long MBEAN_RETRY_MILLIS = 50;

  private final String pid;
  private final JMXConnector connector;
  private final MBeanServerConnection server;

  private AgentConnection(String pid, JMXConnector connector) throws IOException {
    this.pid = pid;
    this.connector = connector;
    this.server = connector.getMBeanServerConnection();
    awaitAgentMBean(server);
  }

  private static ObjectName mbeanName() {
    try {
      return new ObjectName("io.hotkey:type=HotkeyAgent");
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits up to {@link #MBEAN_WAIT_NANOS} for the agent's MXBean; a JVM without one is told by the
   * first read.
   */
  private static void awaitAgentMBean(MBeanServerConnection server) throws IOException {
    long deadline = System.nanoTime() + MBEAN_WAIT_NANOS;
    try {
      while (!server.isRegistered(MBEAN) && System.nanoTime() - deadline < 0) {
        Thread.sleep(MBEAN_RETRY_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Attaches to JVM {@code pid} and connects to its local JMX agent (started if need be). */
  static AgentConnection open(String pid) throws CliException {
    long number;
    try {
      number = Long.parseLong(pid);
    } catch (NumberFormatException e) {
      throw new CliException("not a process id: " + pid);
    }
    if (ProcessHandle.of(number).isEmpty()) {
      throw new CliException("no process with pid " + pid);
    }
    String address;
    try {
      // attaching signals the process (SIGQUIT), which ends one that is not a JVM: ask only those
      // the JVMs of this user announce
      if (VirtualMachine.list().stream().noneMatch(vm -> vm.id().equals(pid))) {
        throw new CliException(
            "process "
                + pid
                + " is not a JVM this user can attach to (it is not in the JDK's list)");
      }
      VirtualMachine vm = VirtualMachine.attach(pid);
      try {
        address = vm.startLocalManagementAgent();
      } finally {
        vm.detach();
      }
    } catch (AttachNotSupportedException | IOException e) {
      throw new CliException(
          "cannot attach to process "
              + pid
              + " (not a JVM, another user's, or attach disabled): "
              + e.getMessage());
    } catch (NoClassDefFoundError e) {
      throw new CliException(
          "status and top need a JDK with the jdk.attach module; this Java has none: "
              + System.getProperty("java.home"));
    }
    try {
      return new AgentConnection(pid, connect(address));
    } catch (IOException e) {
      throw new CliException("cannot reach JVM " + pid + " over JMX: " + e.getMessage());
    }
  }

  // The address is the local connector the JVM the user named published through the attach API (a
  // loopback RMI stub of a process of the same user), as jconsole and jcmd use it: no remote input.
  @SuppressWarnings("BanJNDI")
  private static JMXConnector connect(String address) throws IOException {
    return JMXConnectorFactory.connect(new JMXServiceURL(address));
  }

  /** The agent's report as JSON, the document {@code GET /api/hotkeys} answers. */
  String reportJson() throws CliException {
    try {
      return (String) server.getAttribute(MBEAN, "ReportJson");
    } catch (InstanceNotFoundException e) {
      throw new CliException(
          "JVM "
              + pid
              + " runs no active Hotkey Agent (start it with -javaagent:hotkey-agent.jar, or: java -jar hotkey-agent.jar attach "
              + pid
              + ")");
    } catch (AttributeNotFoundException e) {
      throw new CliException(
          "JVM " + pid + " runs a Hotkey Agent older than this jar, without status and top");
    } catch (IOException e) {
      throw new CliException("lost JVM " + pid + ": " + e.getMessage());
    } catch (Exception e) {
      throw new CliException("cannot read the agent's report from JVM " + pid + ": " + e);
    }
  }

  @Override
  public void close() {
    try {
      connector.close();
    } catch (IOException e) {
      // the JVM may be gone; nothing is left to release on this side
    }
  }

  /** A failure the command reports as its one line. */
  static final class CliException extends Exception {
    private static final long serialVersionUID = 1L;

    CliException(String message) {
      super(message);
    }
  }
}
