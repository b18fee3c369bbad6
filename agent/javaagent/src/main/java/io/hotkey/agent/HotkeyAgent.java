package io.hotkey.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The jar's {@code Premain-Class}, {@code Agent-Class} and {@code Main-Class}. It is compiled for
 * Java 8 and uses only Java 8's API ({@code HotkeyAgentClassFileTest} checks both), so that a JVM
 * older than Java 11 given {@code -javaagent:} can load it, say once that the agent needs Java 11
 * and leave the application alone. The rest of the agent is compiled for Java 11 and reached only
 * by name, through {@code AgentEntry}, once the JVM is known to be new enough.
 */
public final class HotkeyAgent {
  static final int OLDEST_SUPPORTED_JAVA = 11;

  private static final String ENTRY_CLASS = "io.hotkey.agent.AgentEntry";

  private HotkeyAgent() {}

  public static void premain(String arguments, Instrumentation instrumentation) {
    start(arguments, instrumentation);
  }

  public static void agentmain(String arguments, Instrumentation instrumentation) {
    start(arguments, instrumentation);
  }

  public static void main(String[] args) throws Exception {
    String javaVersion = System.getProperty("java.specification.version");
    if (!supports(javaVersion)) {
      System.err.println(tooOldLine(javaVersion));
      System.exit(1);
    }
    try {
      entryMethod("main", String[].class).invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      throw thrownBy(e);
    }
  }

  private static void start(String arguments, Instrumentation instrumentation) {
    String javaVersion = System.getProperty("java.specification.version");
    if (!supports(javaVersion)) {
      System.err.println(tooOldLine(javaVersion));
      return;
    }
    try {
      entryMethod("start", String.class, Instrumentation.class)
          .invoke(null, arguments, instrumentation);
    } catch (InvocationTargetException e) {
      Exception thrown = thrownBy(e);
      if (thrown instanceof RuntimeException) {
        // the start lets a failure out only under hotkey.fail-fast=true, which is meant to stop
        // the JVM
        throw (RuntimeException) thrown;
      }
      System.err.println("[hotkey] could not start, agent inactive: " + thrown);
    } catch (ReflectiveOperationException | LinkageError e) {
      System.err.println("[hotkey] could not start, agent inactive: " + e);
    }
  }

  private static Method entryMethod(String name, Class<?>... parameterTypes)
      throws ReflectiveOperationException {
    return Class.forName(ENTRY_CLASS).getMethod(name, parameterTypes);
  }

  /** What the entry method threw, as itself rather than wrapped by reflection. */
  private static Exception thrownBy(InvocationTargetException e) {
    Throwable thrown = e.getCause();
    if (thrown instanceof Error) {
      throw (Error) thrown;
    }
    return thrown instanceof Exception ? (Exception) thrown : e;
  }

  /**
   * Whether {@code specificationVersion} ({@code java.specification.version}) is Java 11 or later:
   * Java 8 and older report {@code 1.x}, Java 9 on their feature release ("17"). A value that is
   * neither is taken as too old, since the agent cannot tell what it runs on.
   */
  static boolean supports(String specificationVersion) {
    if (specificationVersion == null || specificationVersion.startsWith("1.")) {
      return false;
    }
    int dot = specificationVersion.indexOf('.');
    String feature = dot < 0 ? specificationVersion : specificationVersion.substring(0, dot);
    try {
      return Integer.parseInt(feature) >= OLDEST_SUPPORTED_JAVA;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  static String tooOldLine(String specificationVersion) {
    return "[hotkey] Hotkey Agent needs Java "
        + OLDEST_SUPPORTED_JAVA
        + " or later; this JVM is Java "
        + specificationVersion
        + ", so the agent is inactive";
  }
}
