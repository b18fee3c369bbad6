package io.hotkey.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Paths the build passes in (see the failsafe configuration in pom.xml), with fallbacks for IDE
 * runs.
 */
public final class ItConfig {
  private ItConfig() {}

  private static Path moduleDir() {
    Path cwd = Paths.get("").toAbsolutePath();
    if (Files.isDirectory(cwd.resolve("integration-tests"))) {
      return cwd.resolve("integration-tests");
    }
    return cwd;
  }

  static Path prop(String name, Path fallback) {
    String v = System.getProperty(name);
    return v == null || v.isBlank() ? fallback : Paths.get(v).toAbsolutePath().normalize();
  }

  public static Path agentJar() {
    return prop(
        "hotkey.it.agentJar", moduleDir().resolve("../agent/target/hotkey-agent.jar").normalize());
  }

  public static Path clientsDir() {
    return prop("hotkey.it.clientsDir", moduleDir().resolve("target/clients"));
  }

  /** An APM agent's jar, copied by the build (see the pom's apm-agents execution). */
  public static Path apmAgent(String jarName) {
    return moduleDir().resolve("target/apm-agents").resolve(jarName);
  }

  public static Path appClasses() {
    return prop("hotkey.it.appClasses", moduleDir().resolve("target/classes"));
  }

  public static Path workDir() {
    Path p = prop("hotkey.it.workDir", moduleDir().resolve("target/it-work"));
    try {
      Files.createDirectories(p);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return p;
  }

  /** JDK 17: the JDK running the tests (the build requires 17). */
  public static Path jdk17() {
    return prop("hotkey.it.jdk17", Paths.get(System.getProperty("java.home")));
  }

  public static Path jdk25() {
    return prop("hotkey.it.jdk25", Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64"));
  }
}
