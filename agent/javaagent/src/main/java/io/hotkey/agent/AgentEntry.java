package io.hotkey.agent;

import io.hotkey.agent.cli.LiveCommands;
import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.reload.ConfigSource;
import io.hotkey.config.ConfigException;
import io.hotkey.config.HotkeyConfig;
import java.io.File;
import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.Map;
import net.bytebuddy.agent.ByteBuddyAgent;

/**
 * What the entry points do once {@code HotkeyAgent} has found the JVM new enough: {@code
 * -javaagent:hotkey-agent.jar[=config=/path.properties]} (premain), attaching to a running JVM
 * (agentmain), and the command line ({@code java -jar hotkey-agent.jar}). {@code HotkeyAgent} calls
 * it by name, so that a JVM older than Java 11 never loads it.
 */
public final class AgentEntry {
  private static final String USAGE =
      String.join(
          System.lineSeparator(),
          "Hotkey Agent %s: finds hot Redis keys in Jedis/Lettuce applications and serves them locally.",
          "",
          "Usage:",
          "  java -javaagent:hotkey-agent.jar[=config=/path/hotkey.properties] -jar your-app.jar",
          "  java -jar hotkey-agent.jar attach <pid> [/path/hotkey.properties]",
          LiveCommands.STATUS_USAGE,
          LiveCommands.TOP_USAGE,
          "  java -jar hotkey-agent.jar version",
          "",
          "Configuration: -Dhotkey.<key>=<value>, HOTKEY_<KEY> environment variables, or the properties file.");

  private static volatile boolean started;

  private AgentEntry() {}

  /** premain and agentmain alike. */
  public static synchronized void start(String arguments, Instrumentation instrumentation) {
    if (started) {
      AgentLog.warn("agent already active in this JVM; ignoring the second start");
      return;
    }
    HotkeyConfig config;
    Map<String, String> properties = systemProperties();
    Map<String, String> environment = System.getenv();
    // a reload reads the file again with the other sources as they were at start
    ConfigSource source = () -> HotkeyConfig.load(arguments, properties, environment);
    try {
      config = source.load();
    } catch (ConfigException e) {
      AgentLog.problems("configuration error, agent inactive:", e.getMessage());
      if (failFastRequested(arguments)) {
        throw new IllegalStateException(
            "hotkey.fail-fast=true and the configuration is invalid", e);
      }
      return;
    }
    for (String warning : config.warnings()) {
      AgentLog.warn(warning);
    }
    if (!config.enabled()) {
      AgentLog.info("disabled by hotkey.enabled=false");
      return;
    }
    try {
      AgentInstaller.install(config, source, instrumentation);
      started = true;
    } catch (Throwable t) {
      AgentLog.info("could not start, agent inactive: " + t);
      if (config.failFast()) {
        throw new IllegalStateException("hotkey.fail-fast=true and the agent could not start", t);
      }
    }
  }

  /** fail-fast must be honoured even when the rest of the configuration could not be parsed. */
  private static boolean failFastRequested(String arguments) {
    String value = System.getProperty("hotkey.fail-fast", System.getenv("HOTKEY_FAIL_FAST"));
    if (value == null && arguments != null) {
      for (String pair : arguments.split(",")) {
        if (pair.trim().startsWith("hotkey.fail-fast=")) {
          value = pair.trim().substring("hotkey.fail-fast=".length());
        }
      }
    }
    return "true".equalsIgnoreCase(value == null ? null : value.trim());
  }

  private static Map<String, String> systemProperties() {
    Map<String, String> properties = new HashMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      properties.put(name, System.getProperty(name));
    }
    return properties;
  }

  static String version() {
    String version = AgentEntry.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && LiveCommands.handles(args[0])) {
      System.exit(LiveCommands.run(args, System.out, System.err));
    }
    if (args.length >= 2 && "attach".equals(args[0])) {
      File jar =
          new File(AgentEntry.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      String arguments = args.length >= 3 ? "config=" + new File(args[2]).getAbsolutePath() : null;
      ByteBuddyAgent.attach(jar, args[1], arguments);
      System.out.println(
          "attached Hotkey Agent "
              + version()
              + " to JVM "
              + args[1]
              + "; its log lines appear on that JVM's stderr");
      return;
    }
    if (args.length == 1 && "version".equals(args[0])) {
      System.out.println(version());
      return;
    }
    System.out.println(String.format(USAGE, version()));
    if (args.length > 0 && !"help".equals(args[0]) && !"--help".equals(args[0])) {
      System.exit(2);
    }
  }
}
