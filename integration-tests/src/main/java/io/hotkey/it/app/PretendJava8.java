package io.hotkey.it.app;

import java.lang.instrument.Instrumentation;

/**
 * A test agent, placed before Hotkey Agent's {@code -javaagent}, that makes the JVM report Java 8
 * the way a Java 8 JVM does, so that the agent's version check takes the branch it takes there.
 * {@code java.specification.version} cannot be set with {@code -D} (the JVM overrides it), but it
 * can be set at run time, and an earlier agent's premain runs before ours.
 */
public final class PretendJava8 {
  public static final String JAVA_8_SPECIFICATION_VERSION = "1.8";

  private PretendJava8() {}

  public static void premain(String arguments, Instrumentation instrumentation) {
    System.setProperty("java.specification.version", JAVA_8_SPECIFICATION_VERSION);
  }
}
