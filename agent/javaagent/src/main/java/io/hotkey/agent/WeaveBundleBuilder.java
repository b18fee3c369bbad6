package io.hotkey.agent;

import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The build's step that makes the weaves the agent jar bundles: run with the agent attached, alone,
 * and {@code hotkey.weave-cache.dir} set to a scratch directory, it loads every class a Redis
 * client module names from each directory of client jars it is given, as an application would; the
 * agent weaves them and keeps the weaves in the scratch directory, which this then moves to the
 * directory the build adds to the jar. Fails when a directory holds no class a module names, when
 * no weave was kept, when the agent told of a problem (a class it could not weave, a directory it
 * would not use), or when another agent could have changed the class files the weaves are keyed by.
 */
final class WeaveBundleBuilder {
  private WeaveBundleBuilder() {}

  /** Arguments: the directory for the weaves, then one directory of client jars per release. */
  public static void main(String[] args) throws IOException {
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if ((argument.startsWith("-javaagent:") && !argument.contains("hotkey-agent"))
          || argument.startsWith("-agentpath:")) {
        throw new IllegalStateException("another agent is attached: " + argument);
      }
    }
    Path scratch = Path.of(System.getProperty("hotkey.weave-cache.dir"));
    Path bundled = Files.createDirectories(Path.of(args[0]));
    ByteArrayOutputStream told = copyStandardError();
    try {
      for (int i = 1; i < args.length; i++) {
        weave(args[i], scratch);
      }
      if (weaves(scratch).isEmpty()) {
        throw new IllegalStateException("no weave was kept in " + scratch);
      }
      String log = told.toString(StandardCharsets.UTF_8);
      if (log.contains("[hotkey] internal error") || log.contains("[hotkey] warning")) {
        throw new IllegalStateException("the agent could not weave every class (above)");
      }
      for (Path weave : weaves(scratch)) {
        Files.move(weave, bundled.resolve(weave.getFileName()));
      }
    } finally {
      try (Stream<Path> files = Files.walk(scratch)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
          Files.delete(file);
        }
      }
    }
  }

  private static void weave(String clients, Path scratch) throws IOException {
    long before = weaves(scratch).size();
    URL[] jars = jars(Path.of(clients));
    int loaded = 0;
    for (InstrumentationModule module : AgentInstaller.redisClientModules()) {
      for (TypeInstrumentation type : module.typeInstrumentations()) {
        if (!type.matchesSubtypes() && load(type.typeName(), jars)) {
          loaded++;
        }
      }
    }
    if (loaded == 0) {
      throw new IllegalStateException(clients + " holds no class a Redis client module names");
    }
    // a class whose bytes an earlier release has too was kept then
    long made = weaves(scratch).size() - before;
    System.out.println(clients + ": " + loaded + " classes loaded, " + made + " new weaves kept");
  }

  /** Standard error, where the agent tells of a class it could not weave, copied as it goes. */
  private static ByteArrayOutputStream copyStandardError() {
    ByteArrayOutputStream told = new ByteArrayOutputStream();
    PrintStream console = System.err;
    System.setErr(
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) {
                console.write(b);
                told.write(b);
              }

              @Override
              public void write(byte[] bytes, int offset, int length) {
                console.write(bytes, offset, length);
                told.write(bytes, offset, length);
              }
            },
            true,
            StandardCharsets.UTF_8));
    return told;
  }

  /**
   * Loads a class first in a loader of its own: in a loader where the agent has woven another class
   * already, the helpers it defined there may have loaded this one, unwoven.
   */
  private static boolean load(String name, URL[] jars) throws IOException {
    try (URLClassLoader loader = new URLClassLoader(jars, ClassLoader.getSystemClassLoader())) {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException notInThisVersion) {
      return false;
    }
  }

  private static URL[] jars(Path directory) throws IOException {
    List<URL> jars = new ArrayList<>();
    for (Path file : list(directory)) {
      if (file.toString().endsWith(".jar")) {
        jars.add(file.toUri().toURL());
      }
    }
    return jars.toArray(new URL[0]);
  }

  /** The weaves kept in the scratch directory, in the folder of the agent's build. */
  private static List<Path> weaves(Path scratch) throws IOException {
    try (Stream<Path> files = Files.walk(scratch, 2)) {
      return files.filter(file -> file.toString().endsWith(".woven")).collect(Collectors.toList());
    }
  }

  private static List<Path> list(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.sorted().collect(Collectors.toList());
    }
  }
}
