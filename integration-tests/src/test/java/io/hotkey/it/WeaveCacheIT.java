package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ReadYourWritesResults;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Weaves made before the run. The agent jar's bundled weaves: an application on a client version
 * the jar bundles (Lettuce 7.7 and 6.8.2, Jedis 8 and 7.0, on JDK 17, the newest also on 25) gets
 * its classes woven without Byte Buddy's weaver, each bundled weave byte for byte what that JVM
 * weaves itself. And {@code hotkey.weave-cache.dir}, with a build of the jar without its bundled
 * weaves (on JDK 17, and for Lettuce on 25 too): the first run weaves the client's classes and
 * keeps them; the next run of the same agent and client takes them from there without ever loading
 * Byte Buddy's weaver; an entry damaged on disk is ignored, deleted and woven again; a directory
 * other users can write to is not used. In every run the client behaves as woven (every returned
 * write read back, hot reads served).
 */
class WeaveCacheIT extends RedisTestBase {
  /** Loaded at the first class Byte Buddy weaves, never for a class taken from the cache. */
  private static final String WEAVER = " io.hotkey.shaded.bytebuddy.ByteBuddy source:";

  @TempDir Path temp;

  /** Some of the versions agent/javaagent/pom.xml bundles weaves of. */
  static Stream<Arguments> bundledClientsAndJdks() {
    return Stream.of(
        Arguments.of("lettuce", Clients.LETTUCE_7, Jdk.JDK17),
        Arguments.of("lettuce", "6.8.2.RELEASE", Jdk.JDK17),
        Arguments.of("jedis", Clients.JEDIS_8, Jdk.JDK17),
        Arguments.of("jedis", "7.0.0", Jdk.JDK17),
        Arguments.of("lettuce", Clients.LETTUCE_7, Jdk.JDK25),
        Arguments.of("jedis", Clients.JEDIS_8, Jdk.JDK25));
  }

  @ParameterizedTest(name = "{0} {1} on {2}")
  @MethodSource("bundledClientsAndJdks")
  void aBundledClientIsWovenWithoutByteBuddyAsThisJvmWouldWeaveIt(
      String client, String version, Jdk jdk) throws Exception {
    Run bundled = run(client, version, jdk, ItConfig.agentJar(), null, "bundled");
    Path cache = temp.resolve("weave-cache");
    Run woven = run(client, version, jdk, jarWithoutBundledWeaves(), cache, "woven");
    Set<String> kept = entries(cache);

    List<Executable> checks = new ArrayList<>();
    checks.addAll(bundled.correct());
    checks.addAll(woven.correct());
    checks.add(() -> assertFalse(bundled.wove(), "a bundled client's class was woven"));
    checks.add(() -> assertTrue(woven.wove(), "the jar without bundled weaves did not weave"));
    checks.add(() -> assertFalse(kept.isEmpty(), "the weaving run kept nothing"));
    try (ZipFile agentJar = new ZipFile(ItConfig.agentJar().toFile())) {
      for (String entry : kept) {
        ZipEntry weave = agentJar.getEntry("META-INF/hotkey-weaves/" + entry);
        byte[] made = Files.readAllBytes(buildDir(cache).resolve(entry));
        byte[] inJar = weave == null ? null : read(agentJar, weave);
        checks.add(() -> assertNotNull(inJar, () -> entry + " is not bundled"));
        checks.add(() -> assertArrayEquals(made, inJar, () -> entry + " differs from the bundled"));
      }
    }
    Check.all(
        bundled.child, "bundled weaves " + client + " " + version + " on " + jdk, checks.stream());
  }

  static Stream<Arguments> clientsAndJdks() {
    return Stream.of(
        Arguments.of("lettuce", Jdk.JDK17),
        Arguments.of("jedis", Jdk.JDK17),
        Arguments.of("lettuce", Jdk.JDK25));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("clientsAndJdks")
  void aRestartTakesItsWovenClassesFromTheCache(String client, Jdk jdk) throws Exception {
    Path cache = temp.resolve("weave-cache");
    Path jar = jarWithoutBundledWeaves();
    // what an agent replaced 8 days ago left: the first run deletes it
    Path replaced = Files.createDirectories(cache.resolve("agent-0123456789abcdef"));
    Files.write(replaced.resolve("x.woven"), new byte[] {1});
    Files.setLastModifiedTime(replaced, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
    Run first = run(client, jdk, jar, cache, "first");
    Set<String> kept = entries(cache);
    Run second = run(client, jdk, jar, cache, "second");
    Set<String> afterSecond = entries(cache);
    for (String entry : kept) {
      Path file = buildDir(cache).resolve(entry);
      byte[] stored = Files.readAllBytes(file);
      stored[stored.length / 2] ^= 1;
      Files.write(file, stored);
    }
    Run damaged = run(client, jdk, jar, cache, "damaged");
    Set<String> afterDamaged = entries(cache);

    List<Executable> checks = new ArrayList<>();
    checks.addAll(first.correct());
    checks.addAll(second.correct());
    checks.addAll(damaged.correct());
    checks.add(() -> assertTrue(first.wove(), "the first run did not weave"));
    checks.add(
        () ->
            assertTrue(
                first.child.stderrContains(
                    "[hotkey] weave cache: deleted the weaves of 1 agent build(s) unused for 7 days"),
                () -> "the replaced build was not swept:\n" + first.child.describe()));
    checks.add(() -> assertFalse(kept.isEmpty(), "the first run kept nothing"));
    checks.add(
        () -> assertFalse(second.wove(), "the second run wove instead of reading the cache"));
    checks.add(() -> assertEquals(kept, afterSecond, "the second run changed the cache"));
    checks.add(() -> assertTrue(damaged.wove(), "damaged entries were used"));
    checks.add(
        () ->
            assertTrue(
                damaged.child.stderrContains("[hotkey] warning: weave cache: ignored and deleted "),
                () -> "no warning:\n" + damaged.child.describe()));
    checks.add(() -> assertEquals(kept, afterDamaged, "the damaged entries were not woven again"));
    Check.all(first.child, "weave cache " + client + " on " + jdk, checks.stream());
  }

  @Test
  void aDirectoryOtherUsersCanWriteToIsNotUsed() throws Exception {
    Path shared = Files.createDirectory(temp.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    Run run = run("lettuce", Jdk.JDK17, jarWithoutBundledWeaves(), shared, "shared");
    List<Executable> checks = new ArrayList<>(run.correct());
    checks.add(() -> assertTrue(run.wove(), "the classes were not woven"));
    checks.add(() -> assertEquals(Set.of(), names(shared), "the shared directory was used"));
    checks.add(
        () ->
            assertTrue(
                run.child.stderrContains(
                    "[hotkey] warning: hotkey.weave-cache.dir is not used, no weave is kept for the next start: "
                        + shared
                        + " can be written by other users"),
                () -> "no warning:\n" + run.child.describe()));
    Check.all(run.child, "shared weave cache", checks.stream());
  }

  private Run run(String client, Jdk jdk, Path agentJar, Path cache, String label) {
    return run(
        client,
        client.equals("jedis") ? Clients.JEDIS_8 : Clients.LETTUCE_7,
        jdk,
        agentJar,
        cache,
        label);
  }

  /** The read-your-writes scenario; with {@code hotkey.weave-cache.dir} unless cache is null. */
  private Run run(String client, String version, Jdk jdk, Path agentJar, Path cache, String label) {
    Snapshots snaps = new Snapshots(redis::stats);
    String name = client + "-" + version + "-" + jdk + "-" + label;
    Path classLog = temp.resolve(name + "-classes.log");
    AgentJvm jvm =
        client.equals("jedis")
            ? AgentJvm.jedisApp(version).args("--readers", "3")
            : AgentJvm.lettuceApp(version);
    if (cache != null) {
      jvm.prop("hotkey.weave-cache.dir", cache.toString());
    }
    ChildRun child =
        jvm.jdk(jdk)
            .agentJar(agentJar)
            .hotkeyTestDefaults()
            .jvmOption("-Xlog:class+load=info:file=" + classLog)
            .name("weave-cache-" + name)
            .args("--scenario", "ryw", "--redis", redis.address(), "--millis", "2000")
            .run(snaps);
    return new Run(
        child,
        child.result(ReadYourWritesResults.READS),
        snaps.calls("get", "ryw", "ryw-done"),
        classLog);
  }

  /**
   * A copy of the agent jar without its bundled weaves: the same agent build (the weaves are not
   * part of it), which weaves every class itself.
   */
  private Path jarWithoutBundledWeaves() throws IOException {
    Path copy = temp.resolve("hotkey-agent-without-bundled-weaves.jar");
    if (Files.exists(copy)) {
      return copy;
    }
    try (ZipFile agentJar = new ZipFile(ItConfig.agentJar().toFile());
        ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(copy))) {
      for (ZipEntry entry : Collections.list(agentJar.entries())) {
        if (!entry.getName().startsWith("META-INF/hotkey-weaves/")) {
          out.putNextEntry(new ZipEntry(entry.getName()));
          try (InputStream in = agentJar.getInputStream(entry)) {
            in.transferTo(out);
          }
          out.closeEntry();
        }
      }
    }
    return copy;
  }

  private static byte[] read(ZipFile jar, ZipEntry entry) throws IOException {
    try (InputStream in = jar.getInputStream(entry)) {
      return in.readAllBytes();
    }
  }

  /** The entries of the one agent build's folder in {@code cache}. */
  private static Set<String> entries(Path cache) throws IOException {
    return names(buildDir(cache));
  }

  private static Set<String> names(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  private static Path buildDir(Path cache) throws IOException {
    try (Stream<Path> folders = Files.list(cache)) {
      List<Path> builds = folders.collect(Collectors.toList());
      assertEquals(1, builds.size(), () -> "not one agent build's folder: " + builds);
      return builds.get(0);
    }
  }

  /** One run of the read-your-writes scenario, and the classes its JVM loaded. */
  private static final class Run {
    final ChildRun child;
    final long reads;
    final long redisGets;
    final Path classLog;

    Run(ChildRun child, long reads, long redisGets, Path classLog) {
      this.child = child;
      this.reads = reads;
      this.redisGets = redisGets;
      this.classLog = classLog;
    }

    boolean wove() throws IOException {
      try (Stream<String> lines = Files.lines(classLog)) {
        return lines.anyMatch(line -> line.contains(WEAVER));
      }
    }

    List<Executable> correct() {
      List<Executable> checks = new ArrayList<>();
      checks.add(() -> assertEquals(0, child.exitCode(), () -> "exit code"));
      checks.add(
          () ->
              assertFalse(
                  child.stderrContains("[hotkey] internal error"), () -> "internal errors"));
      checks.add(
          () -> assertFalse(child.stderrContains("stops serving"), () -> "a module stood down"));
      LettuceIT.readYourWritesChecks(child, reads, redisGets).forEach(checks::add);
      return checks;
    }
  }
}
