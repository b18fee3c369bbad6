package io.hotkey.agent;

import io.hotkey.agent.instrument.InstrumentationModule;
import io.hotkey.agent.instrument.TypeInstrumentation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The build's step that makes the weaves the agent jar bundles: run with the agent attached and
 * {@code hotkey.weave-cache.dir} set, it loads every class a Redis client module names from each
 * directory of client jars it is given, as an application would; the agent weaves them and keeps
 * the weaves in that directory, which the build then adds to the jar. Fails when a directory's
 * classes left no weave there.
 */
final class WeaveBundleBuilder {
  private WeaveBundleBuilder() {}

  public static void main(String[] clientDirectories) throws IOException {
    Path weaves = Path.of(System.getProperty("hotkey.weave-cache.dir"));
    // the agent tells of a class it could not weave on standard error, line by line
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
    for (String clients : clientDirectories) {
      long before = count(weaves);
      URL[] jars = jars(Path.of(clients));
      int loaded = 0;
      for (InstrumentationModule module : AgentInstaller.redisClientModules()) {
        for (TypeInstrumentation type : module.typeInstrumentations()) {
          if (!type.matchesSubtypes() && load(type.typeName(), jars)) {
            loaded++;
          }
        }
      }
      long made = count(weaves) - before;
      if (made == 0) {
        throw new IllegalStateException(
            clients + ": no weave was kept in " + weaves + " (" + loaded + " classes loaded)");
      }
      System.out.println(clients + ": " + loaded + " classes loaded, " + made + " weaves kept");
    }
    String log = told.toString(StandardCharsets.UTF_8);
    if (log.contains("[hotkey] internal error") || log.contains("[hotkey] warning")) {
      throw new IllegalStateException("the agent could not weave every class (above)");
    }
    System.exit(0); // the agent's threads are not waited for
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
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        if (file.toString().endsWith(".jar")) {
          jars.add(file.toUri().toURL());
        }
      }
    }
    return jars.toArray(new URL[0]);
  }

  private static long count(Path weaves) throws IOException {
    try (Stream<Path> files = Files.list(weaves)) {
      return files.filter(file -> file.toString().endsWith(".woven")).count();
    }
  }
}
