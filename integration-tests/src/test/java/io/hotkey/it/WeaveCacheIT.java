package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ReadYourWritesResults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code hotkey.weave-cache.dir} (on JDK 17, and for Lettuce on 25 too): the first run weaves the
 * client's classes and keeps them; the next run of the same agent and client takes them from there
 * without ever loading Byte Buddy's weaver, and the client behaves as woven (every returned write
 * read back, hot reads served); an entry damaged on disk is ignored, deleted and woven again; a
 * directory other users can write to is not used.
 */
class WeaveCacheIT extends RedisTestBase {
  /** Loaded at the first class Byte Buddy weaves, never for a class taken from the cache. */
  private static final String WEAVER = " io.hotkey.shaded.bytebuddy.ByteBuddy source:";

  @TempDir Path temp;

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
    Run first = run(client, jdk, cache, "first");
    Set<String> kept = entries(cache);
    Run second = run(client, jdk, cache, "second");
    Set<String> afterSecond = entries(cache);
    for (String entry : kept) {
      Path file = cache.resolve(entry);
      byte[] stored = Files.readAllBytes(file);
      stored[stored.length / 2] ^= 1;
      Files.write(file, stored);
    }
    Run damaged = run(client, jdk, cache, "damaged");
    Set<String> afterDamaged = entries(cache);

    List<Executable> checks = new ArrayList<>();
    checks.addAll(first.correct());
    checks.addAll(second.correct());
    checks.addAll(damaged.correct());
    checks.add(() -> assertTrue(first.wove(), "the first run did not weave"));
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
    Run run = run("lettuce", Jdk.JDK17, shared, "shared");
    List<Executable> checks = new ArrayList<>(run.correct());
    checks.add(() -> assertTrue(run.wove(), "the classes were not woven"));
    checks.add(() -> assertEquals(Set.of(), entries(shared), "the shared directory was used"));
    checks.add(
        () ->
            assertTrue(
                run.child.stderrContains(
                    "[hotkey] warning: hotkey.weave-cache.dir is not used, classes are woven at each start: "
                        + shared
                        + " can be written by other users"),
                () -> "no warning:\n" + run.child.describe()));
    Check.all(run.child, "shared weave cache", checks.stream());
  }

  private Run run(String client, Jdk jdk, Path cache, String label) {
    Snapshots snaps = new Snapshots(redis::stats);
    Path classLog = temp.resolve(client + "-" + jdk + "-" + label + "-classes.log");
    AgentJvm jvm =
        client.equals("jedis")
            ? AgentJvm.jedisApp(Clients.JEDIS_8).args("--readers", "3")
            : AgentJvm.lettuceApp(Clients.LETTUCE_7);
    ChildRun child =
        jvm.jdk(jdk)
            .hotkeyTestDefaults()
            .prop("hotkey.weave-cache.dir", cache.toString())
            .jvmOption("-Xlog:class+load=info:file=" + classLog)
            .name("weave-cache-" + client + "-" + label)
            .args("--scenario", "ryw", "--redis", redis.address(), "--millis", "2000")
            .run(snaps);
    return new Run(
        child,
        child.result(ReadYourWritesResults.READS),
        snaps.calls("get", "ryw", "ryw-done"),
        classLog);
  }

  private static Set<String> entries(Path cache) throws IOException {
    try (Stream<Path> files = Files.list(cache)) {
      return files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
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
