package io.hotkey.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.agent.core.Sha256;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WovenClassCacheTest {
  private static final byte[] CLASS_FILE = {(byte) 0xca, (byte) 0xfe, 1, 2, 3};

  @TempDir Path dir;

  @Test
  void aStoredWeaveIsFoundWithItsHooksAndBytes() throws IOException {
    WovenClassCache cache = cache(1);
    String woven = cache.key("a.B", false, List.of("m#0", "m#1"), CLASS_FILE);
    String untouched = cache.key("a.C", false, List.of("m#2"), CLASS_FILE);
    cache.store(woven, new WovenClassCache.Weave(List.of("m#1"), new byte[] {9, 8, 7}));
    cache.store(untouched, new WovenClassCache.Weave(List.of(), null));

    WovenClassCache.Weave found = cache(1).find(woven);
    assertEquals(List.of("m#1"), found.hooks);
    assertArrayEquals(new byte[] {9, 8, 7}, found.classFile);
    WovenClassCache.Weave none = cache(1).find(untouched);
    assertEquals(List.of(), none.hooks);
    assertNull(none.classFile, "a class no hook matched stays as it is");
    assertNull(cache(1).find(cache.key("a.D", false, List.of(), CLASS_FILE)), "never stored");
    assertEquals(Set.of(woven + ".woven", untouched + ".woven"), names(), "no scratch file left");
  }

  @Test
  void aWriteLeftUnfinishedLongAgoIsDeletedAndOneUnderWayIsNot() throws IOException {
    Path dir = Files.createDirectory(buildDir(1));
    Path orphaned = Files.createFile(dir.resolve("k.123.1.1.tmp"));
    Files.setLastModifiedTime(orphaned, FileTime.from(Instant.now().minus(Duration.ofDays(1))));
    Path underWay = Files.createFile(dir.resolve("k.456.1.1.tmp"));
    Path notAFile = Files.createDirectory(dir.resolve("d.tmp"));
    Files.createFile(notAFile.resolve("inside"));
    Files.setLastModifiedTime(notAFile, FileTime.from(Instant.now().minus(Duration.ofDays(1))));
    Path dangling = Files.createSymbolicLink(dir.resolve("l.tmp"), dir.resolve("gone"));
    WovenClassCache cache = cache(1);
    String key = cache.key("a.B", false, List.of("m#0"), CLASS_FILE);
    cache.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {1}));
    assertEquals(
        Set.of(
            key + ".woven",
            underWay.getFileName().toString(),
            notAFile.getFileName().toString(),
            dangling.getFileName().toString()),
        names(),
        "only the orphaned scratch file is deleted; what is not a file, or a link, stays");
  }

  @Test
  void theFirstLookUpMarksTheBuildUsedAndDeletesWhatNoRunUsedForAWeek() throws IOException {
    WovenClassCache cache = cache(1);
    String key = cache.key("a.B", false, List.of("m#0"), CLASS_FILE);
    cache.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {1}));
    aged(buildDir(1), 30);
    Path replaced = Files.createDirectory(buildDir(2));
    Files.createDirectory(replaced.resolve("nested"));
    aged(Files.createFile(replaced.resolve("nested").resolve("x.woven")), 30);
    aged(Files.createFile(replaced.resolve("y.woven")), 30);
    aged(replaced, 8);
    aged(Files.createDirectory(buildDir(3)), 6);
    Path before = aged(Files.createFile(dir.resolve("old.woven")), 8);
    Path recent = aged(Files.createFile(dir.resolve("recent.woven")), 1);
    Path notOurs = aged(Files.createFile(dir.resolve("notes.txt")), 30);
    Path notAFolder = aged(Files.createFile(dir.resolve("agent-notes")), 30);

    Instant lookedUp = Instant.now().minusSeconds(1);
    assertArrayEquals(new byte[] {1}, cache(1).find(key).classFile, "the kept weave");

    assertEquals(
        Set.of(
            buildDir(1).getFileName().toString(),
            buildDir(3).getFileName().toString(),
            recent.getFileName().toString(),
            notOurs.getFileName().toString(),
            notAFolder.getFileName().toString()),
        names(dir),
        "deleted: the build unused for 8 days, with all it held, and the older layout's entry "
            + before.getFileName()
            + " of 8 days; kept: this build, one used 6 days ago, what the cache did not make");
    assertTrue(
        Files.getLastModifiedTime(buildDir(1)).toInstant().isAfter(lookedUp),
        "this build's folder was not marked as used");
  }

  @Test
  void theSweepRunsOnceARunOnItsOwnExecutor() throws IOException {
    List<Runnable> sweeps = new ArrayList<>();
    WovenClassCache cache = new WovenClassCache(dir, new byte[] {1}, sweeps::add);
    Path replaced = aged(Files.createDirectory(buildDir(2)), 8);
    String key = cache.key("a.B", false, List.of("m#0"), CLASS_FILE);
    assertNull(cache.find(key));
    cache.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {1}));
    assertNotNull(cache.find(key));

    assertEquals(1, sweeps.size(), "one sweep a run");
    assertTrue(Files.exists(replaced), "swept on the thread that looked the weave up");
    sweeps.get(0).run();
    assertFalse(Files.exists(replaced), "the sweep left an unused build");
  }

  @Test
  void aBuildFolderSweptByAnotherJvmIsMadeAgainAtTheNextWrite() throws IOException {
    WovenClassCache cache = cache(1);
    String first = cache.key("a.B", false, List.of("m#0"), CLASS_FILE);
    cache.store(first, new WovenClassCache.Weave(List.of("m#0"), new byte[] {1}));
    Files.delete(buildDir(1).resolve(first + ".woven"));
    Files.delete(buildDir(1));

    String second = cache.key("a.C", false, List.of("m#0"), CLASS_FILE);
    cache.store(second, new WovenClassCache.Weave(List.of("m#0"), new byte[] {2}));
    assertArrayEquals(new byte[] {2}, cache.find(second).classFile);
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(buildDir(1))),
        "the folder is its owner's alone");
  }

  @Test
  void theKeyChangesWithTheAgentTheClassTheHooksAndThePass() {
    String key = cache(1).key("a.B", false, List.of("m#0"), CLASS_FILE);
    assertEquals(key, cache(1).key("a.B", false, List.of("m#0"), CLASS_FILE.clone()));
    List<String> others =
        List.of(
            cache(2).key("a.B", false, List.of("m#0"), CLASS_FILE),
            cache(1).key("a.C", false, List.of("m#0"), CLASS_FILE),
            cache(1).key("a.B", true, List.of("m#0"), CLASS_FILE),
            cache(1).key("a.B", false, List.of("m#1"), CLASS_FILE),
            cache(1).key("a.B", false, List.of("m#0", "m#1"), CLASS_FILE),
            cache(1).key("a.B", false, List.of("m#0"), new byte[] {(byte) 0xca, (byte) 0xfe, 1}));
    assertEquals(others.size(), Set.copyOf(others).size(), "two inputs share a key");
    assertFalse(others.contains(key), "a changed input kept the key");
  }

  @Test
  void aDamagedEntryIsIgnoredAndDeleted() throws IOException {
    WovenClassCache cache = cache(1);
    String key = cache.key("a.B", false, List.of("m#0"), CLASS_FILE);
    cache.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {1, 2, 3, 4}));
    Path entry = buildDir(1).resolve(key + ".woven");
    byte[] stored = Files.readAllBytes(entry);
    stored[stored.length - 1] ^= 1;
    Files.write(entry, stored);

    assertNull(cache.find(key), "a damaged entry was used");
    assertFalse(Files.exists(entry), "a damaged entry was kept");

    Files.write(entry, new byte[] {1, 2});
    assertNull(cache.find(key), "a truncated entry was used");
    assertFalse(Files.exists(entry), "a truncated entry was kept");
  }

  @Test
  void aMissingDirectoryIsMadeForItsOwnerOnly() throws IOException {
    Path made = dir.resolve("a").resolve("b");
    WovenClassCache.checkPrivate(made);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    assertEquals(Set.of(), names(made), "the owner check left a file");
  }

  @Test
  void aDirectoryInsideOneOthersCanWriteToIsRefused() throws IOException {
    Path shared = Files.createDirectories(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    IOException refused =
        assertThrows(IOException.class, () -> WovenClassCache.checkPrivate(shared.resolve("mine")));
    assertTrue(
        refused.getMessage().contains("is inside " + shared.toRealPath() + ", which other users"),
        refused::getMessage);
  }

  @Test
  void aLinkToThePrivateDirectoryIsFollowedOnce() throws IOException {
    Path real = Files.createDirectories(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    assertEquals(real.toRealPath(), WovenClassCache.checkPrivate(link));
  }

  @Test
  void aDirectoryOthersCanWriteToIsRefused() throws IOException {
    for (String permissions : List.of("rwxrwxrwx", "rwxrwx---")) {
      Path shared = Files.createDirectories(dir.resolve(permissions));
      Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString(permissions));
      IOException refused =
          assertThrows(IOException.class, () -> WovenClassCache.checkPrivate(shared));
      assertTrue(
          refused.getMessage().contains("can be written by other users"), refused::getMessage);
    }
  }

  @Test
  void theAgentsIdentityChangesWithAnyFileOfItsJarButItsBundledWeaves() throws IOException {
    byte[] original = digest(jar("one.jar", "x/A.class", "aaa", "x/B.class", "bbb"));
    assertArrayEquals(original, digest(jar("same.jar", "x/A.class", "aaa", "x/B.class", "bbb")));
    assertArrayEquals(
        original,
        digest(jar("reordered.jar", "x/", "", "x/B.class", "bbb", "x/A.class", "aaa")),
        "a copy in another order, with a directory's entry");
    assertArrayEquals(
        original,
        digest(
            jar(
                "bundling.jar",
                "x/A.class",
                "aaa",
                "x/B.class",
                "bbb",
                WovenClassCache.BUNDLED + "k.woven",
                "woven")));
    assertFalse(
        Arrays.equals(
            original, digest(jar("changed.jar", "x/A.class", "aaa", "x/B.class", "bbc"))));
    assertFalse(
        Arrays.equals(
            original, digest(jar("renamed.jar", "x/A.class", "aaa", "x/C.class", "bbb"))));
  }

  @Test
  void aBundledWeaveIsFoundBeforeAKeptOneAndNothingIsKeptWithoutADirectory() throws IOException {
    String key;
    try (ZipFile plain = new ZipFile(jar("plain.jar", "x/A.class", "aaa").toFile())) {
      key =
          new WovenClassCache(plain, null, Runnable::run)
              .key("a.B", false, List.of("m#0"), CLASS_FILE);
    }
    byte[] bundledBytes = {4, 5, 6};
    Path bundling =
        jar(
            "bundling.jar",
            "x/A.class",
            "aaa",
            WovenClassCache.BUNDLED + key + ".woven",
            WovenClassCache.encode(new WovenClassCache.Weave(List.of("m#0"), bundledBytes)));
    try (ZipFile agentJar = new ZipFile(bundling.toFile())) {
      WovenClassCache withDirectory = new WovenClassCache(agentJar, dir, Runnable::run);
      assertEquals(key, withDirectory.key("a.B", false, List.of("m#0"), CLASS_FILE));
      withDirectory.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {7}));
      assertArrayEquals(bundledBytes, withDirectory.find(key).classFile, "the bundled weave");

      WovenClassCache bundledOnly = new WovenClassCache(agentJar, null, Runnable::run);
      String other = bundledOnly.key("a.C", false, List.of("m#0"), CLASS_FILE);
      assertNull(bundledOnly.find(other), "not bundled");
      bundledOnly.store(other, new WovenClassCache.Weave(List.of("m#0"), new byte[] {8}));
      assertNull(bundledOnly.find(other), "kept without a directory");
    }
  }

  @Test
  void aDamagedBundledWeaveIsIgnoredForTheKeptOne() throws IOException {
    String key;
    try (ZipFile plain = new ZipFile(jar("plain.jar", "x/A.class", "aaa").toFile())) {
      key =
          new WovenClassCache(plain, null, Runnable::run)
              .key("a.B", false, List.of("m#0"), CLASS_FILE);
    }
    byte[] damaged =
        WovenClassCache.encode(new WovenClassCache.Weave(List.of("m#0"), new byte[] {1}));
    damaged[damaged.length - 1] ^= 1;
    Path bundling =
        jar("damaged.jar", "x/A.class", "aaa", WovenClassCache.BUNDLED + key + ".woven", damaged);
    try (ZipFile agentJar = new ZipFile(bundling.toFile())) {
      assertNull(
          new WovenClassCache(agentJar, null, Runnable::run).find(key), "a damaged weave was used");
      WovenClassCache withDirectory = new WovenClassCache(agentJar, dir, Runnable::run);
      withDirectory.store(key, new WovenClassCache.Weave(List.of("m#0"), new byte[] {2}));
      assertArrayEquals(new byte[] {2}, withDirectory.find(key).classFile, "the kept weave");
    }
  }

  private static byte[] digest(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return WovenClassCache.jarDigest(zip);
    }
  }

  private WovenClassCache cache(int agentBuild) {
    return new WovenClassCache(dir, new byte[] {(byte) agentBuild}, Runnable::run);
  }

  /** The folder of the build {@link #cache} names {@code agentBuild}. */
  private Path buildDir(int agentBuild) {
    return dir.resolve("agent-" + Sha256.hex(new byte[] {(byte) agentBuild}));
  }

  /** {@code path}, last modified {@code days} ago. */
  private static Path aged(Path path, int days) throws IOException {
    Files.setLastModifiedTime(path, FileTime.from(Instant.now().minus(Duration.ofDays(days))));
    return path;
  }

  /** The files of build 1's folder. */
  private Set<String> names() throws IOException {
    return names(buildDir(1));
  }

  private static Set<String> names(Path in) throws IOException {
    try (Stream<Path> files = Files.list(in)) {
      return files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  /** A jar of the given entries: name, content (a String or bytes), name, content... */
  private Path jar(String name, Object... entries) throws IOException {
    Path jar = dir.resolve(name);
    try (OutputStream file = Files.newOutputStream(jar);
        ZipOutputStream zip = new ZipOutputStream(file)) {
      for (int i = 0; i < entries.length; i += 2) {
        zip.putNextEntry(new ZipEntry((String) entries[i]));
        Object content = entries[i + 1];
        zip.write(
            content instanceof byte[] bytes
                ? bytes
                : ((String) content).getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return jar;
  }
}
