package io.hotkey.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The JDKs the child JVMs run on. */
public enum Jdk {
  JDK17,
  JDK25;

  public Path home() {
    return this == JDK17 ? ItConfig.jdk17() : ItConfig.jdk25();
  }

  /** The major version {@code java.version} starts with. */
  public String major() {
    return this == JDK17 ? "17" : "25";
  }

  public Path java() {
    Path java = home().resolve("bin/java");
    if (!Files.isExecutable(java)) {
      throw new IllegalStateException(
          name()
              + ": no executable "
              + java
              + " (set -Dhotkey.it."
              + name().toLowerCase(Locale.ROOT)
              + "=<JDK home>)");
    }
    return java;
  }
}
