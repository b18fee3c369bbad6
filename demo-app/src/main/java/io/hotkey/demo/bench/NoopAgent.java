package io.hotkey.demo.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * An agent that does nothing: what any {@code -javaagent:} costs a JVM's start before its {@code
 * premain} runs, the floor {@link StartupBench} compares the agent with.
 */
public final class NoopAgent {
  private NoopAgent() {}

  public static void premain(String arguments, Instrumentation instrumentation) {}

  /** Writes a jar holding only this class, with it as {@code Premain-Class}. */
  static Path writeJar() throws IOException {
    Path jar = Files.createTempFile("noop-agent", ".jar");
    jar.toFile().deleteOnExit();
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", NoopAgent.class.getName());
    String entry = NoopAgent.class.getName().replace('.', '/') + ".class";
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file, manifest);
        InputStream in = NoopAgent.class.getClassLoader().getResourceAsStream(entry)) {
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }
}
