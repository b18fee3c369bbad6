package io.hotkey.agent.instrument;

import io.hotkey.agent.core.AgentLog;
import io.hotkey.agent.core.Sha256;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Woven class files made before this run, so that a JVM gets its client's classes woven without
 * Byte Buddy, whose first use (loaded and run cold) is most of what the agent adds to the first
 * command of a client. Two places hold them: the agent jar, where the build puts the weaves of the
 * client versions it bundles ({@value #BUNDLED}, read-only), and, with {@code
 * hotkey.weave-cache.dir}, a directory where each run keeps what it wove for the next.
 *
 * <p>An entry is named by checksums of everything its bytes follow from ({@link Checksums}): the
 * agent build (the names, sizes and CRCs of its jar's entries but the bundled weaves), the class
 * file as the JVM handed it over, and the hooks that could apply to it. Not the Java version: Byte
 * Buddy keeps the class file's own version and weaves the same bytes on every JVM. Each entry holds
 * checksums of its content, checked when it is read; one that fails the check is not used (and
 * deleted from the directory) and the class woven again. Only a directory that this JVM's user owns
 * and no one else can write to is used: its bytes become the application's code.
 *
 * <p>The directory holds a folder per agent build ({@code agent-<build checksum>}), which a run
 * marks as used (its modification time) when it first looks a weave up there (a run whose classes
 * are all bundled never does). Once a run, off the application's threads, the folders of other
 * builds unused for {@value #UNUSED_BUILD_DAYS} days are deleted, as are the files an agent before
 * this layout kept in the directory itself: an agent replaced by an upgrade leaves nothing behind
 * for long, and one still run somewhere on the machine keeps its weaves (or weaves again, once,
 * after a week without a start).
 */
public final class WovenClassCache {
  /** The folder of the agent jar that holds the bundled weaves; not part of the agent build. */
  static final String BUNDLED = "META-INF/hotkey-weaves/";

  private static final byte[] MAGIC = "HKWC2".getBytes(StandardCharsets.US_ASCII);
  private static final String SUFFIX = ".woven";
  private static final String SCRATCH_SUFFIX = ".tmp";
  private static final String BUILD_PREFIX = "agent-";

  /** How long the folder of a build no run used is kept. */
  static final int UNUSED_BUILD_DAYS = 7;

  private static final AtomicLong SCRATCH = new AtomicLong();
  private static final FileAttribute<?>[] OWNER_ONLY = {
    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))
  };

  /**
   * A scratch file lives for one write, milliseconds; one this old was left by a JVM that died
   * writing it.
   */
  private static final long ORPHANED_SCRATCH_MILLIS = 10 * 60 * 1000;

  /** The jar the agent runs from, opened in {@code premain}; null for a directory alone. */
  private final ZipFile agentJar;

  /** Where this run keeps what it weaves (in its build's folder), or null. */
  private final Path dir;

  /** Runs the once-a-run sweep of the directory. */
  private final Executor sweeper;

  /** What identifies the agent build, taken from the jar at the first class looked up. */
  private volatile byte[] agentBuild;

  /** This build's folder in {@link #dir}. */
  private volatile Path buildDir;

  private final Warning readFailed = new Warning();
  private final Warning damaged = new Warning();
  private final Warning bundledDamaged = new Warning();
  private final Warning writeFailed = new Warning();
  private final Warning sweepFailed = new Warning();
  private final AtomicBoolean used = new AtomicBoolean();

  /** The bytes a class was woven into, and the hooks that applied; no bytes when none did. */
  static final class Weave {
    final List<String> hooks;
    final byte[] classFile;

    Weave(List<String> hooks, byte[] classFile) {
      this.hooks = List.copyOf(hooks);
      this.classFile = classFile;
    }
  }

  private WovenClassCache(ZipFile agentJar, Path dir, byte[] agentBuild, Executor sweeper) {
    this.agentJar = agentJar;
    this.dir = dir;
    this.agentBuild = agentBuild;
    this.sweeper = sweeper;
  }

  /**
   * A directory only, for a build named by {@code agentBuild}; its sweep runs on {@code sweeper}.
   */
  WovenClassCache(Path dir, byte[] agentBuild, Executor sweeper) {
    this(null, dir, agentBuild.clone(), sweeper);
  }

  /**
   * The weaves bundled in {@code agentJar} (the build is computed from it when first needed) and,
   * unless {@code dir} is null, those kept there; its sweep runs on {@code sweeper}.
   */
  WovenClassCache(ZipFile agentJar, Path dir, Executor sweeper) {
    this(agentJar, dir, null, sweeper);
  }

  /**
   * The cache for the agent jar this class was loaded from, opened now: the jar the JVM runs, not
   * one put in its place later.
   *
   * @param dir a directory {@link #checkPrivate} returned, or null
   * @throws IOException if the agent does not run from a jar that can be read
   */
  public static WovenClassCache open(Path dir) throws IOException {
    Path jar;
    try {
      jar =
          Path.of(
              WovenClassCache.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (Exception e) {
      throw new IOException("the agent's jar cannot be located: " + e);
    }
    if (!Files.isRegularFile(jar)) {
      throw new IOException("the agent does not run from its jar (" + jar + ")");
    }
    return new WovenClassCache(
        new ZipFile(jar.toFile()), dir, WovenClassCache::sweepOnAThreadOfItsOwn);
  }

  private static void sweepOnAThreadOfItsOwn(Runnable sweep) {
    Thread thread = new Thread(sweep, "hotkey-weave-cache-sweep");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Makes {@code dir} if missing and checks that only this JVM's user can change what it holds: it
   * must be theirs and writable by no one else, and so must every directory above it unless root
   * owns it and it is sticky (as {@code /tmp}), the way {@code sshd} checks a user's keys. Returns
   * its real path, which the cache uses from then on.
   */
  public static Path checkPrivate(Path dir) throws IOException {
    boolean posix = posix(dir);
    try {
      Files.createDirectories(dir, ownerOnly(dir));
    } catch (IOException e) {
      throw new IOException("cannot make " + dir + " (" + e + ")");
    }
    Path real = dir.toRealPath();
    if (!posix) {
      return real;
    }
    UserPrincipal self = ownerOfAFileMadeIn(real);
    PosixFileAttributes attributes = Files.readAttributes(real, PosixFileAttributes.class);
    if (!attributes.owner().equals(self)) {
      throw new IOException(
          real + " belongs to " + attributes.owner().getName() + ", not to " + self.getName());
    }
    if (othersCanWrite(attributes)) {
      throw new IOException(
          real
              + " can be written by other users ("
              + PosixFilePermissions.toString(attributes.permissions())
              + ")");
    }
    for (Path above = real.getParent(); above != null; above = above.getParent()) {
      PosixFileAttributes parent = Files.readAttributes(above, PosixFileAttributes.class);
      boolean root = parent.owner().getName().equals("root");
      if (!parent.owner().equals(self) && !root) {
        throw new IOException(
            real + " is inside " + above + ", which belongs to " + parent.owner().getName());
      }
      if (othersCanWrite(parent) && !(root && sticky(above))) {
        throw new IOException(
            real
                + " is inside "
                + above
                + ", which other users can write to ("
                + PosixFilePermissions.toString(parent.permissions())
                + ")");
      }
    }
    return real;
  }

  private static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  /** What makes a new directory its owner's alone, where the file system has owners. */
  private static FileAttribute<?>[] ownerOnly(Path path) {
    return posix(path) ? OWNER_ONLY : new FileAttribute<?>[0];
  }

  /** This JVM's user, as the file system sees it: the owner of a file it makes. */
  private static UserPrincipal ownerOfAFileMadeIn(Path dir) throws IOException {
    Path probe;
    try {
      probe = Files.createFile(dir.resolve(scratchName("owner")));
    } catch (IOException e) {
      throw new IOException("cannot make a file in " + dir + " (" + e + ")");
    }
    try {
      return Files.getOwner(probe);
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  private static boolean othersCanWrite(PosixFileAttributes attributes) {
    Set<PosixFilePermission> permissions = attributes.permissions();
    return permissions.contains(PosixFilePermission.GROUP_WRITE)
        || permissions.contains(PosixFilePermission.OTHERS_WRITE);
  }

  /** Whether only a file's owner may rename or delete it in {@code dir} (its sticky bit). */
  private static boolean sticky(Path dir) throws IOException {
    try {
      return (((Integer) Files.getAttribute(dir, "unix:mode")) & 01000) != 0;
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  /** The entry's name for a class: what its woven bytes follow from, checksummed. */
  String key(String className, boolean members, List<String> hooks, byte[] classFile) {
    Checksums key =
        new Checksums()
            .update(agentBuild())
            .update(className)
            .update(members ? "members" : "advice")
            .update(hooks.size());
    for (String hook : hooks) {
      key.update(hook);
    }
    return key.update(classFile.length).update(classFile).hex();
  }

  private byte[] agentBuild() {
    byte[] build = agentBuild;
    if (build == null) {
      synchronized (this) {
        build = agentBuild;
        if (build == null) {
          build = jarDigest(agentJar);
          agentBuild = build;
        }
      }
    }
    return build;
  }

  /**
   * The weave stored under {@code key}: the bundled one, else the directory's; null if neither has
   * one (or the one found failed its check).
   */
  Weave find(String key) {
    Weave bundled = agentJar == null ? null : findBundled(key);
    return bundled != null || dir == null ? bundled : findKept(key);
  }

  private Path buildDir() {
    Path build = buildDir;
    if (build == null) {
      build = dir.resolve(BUILD_PREFIX + Sha256.hex(agentBuild()));
      buildDir = build;
    }
    return build;
  }

  /**
   * At a run's first use of the directory: marks this build's folder as used, and sweeps the
   * directory on {@link #sweeper}.
   */
  private Path usingBuildDir() {
    Path build = buildDir();
    if (used.compareAndSet(false, true)) {
      long now = System.currentTimeMillis();
      try {
        Files.setLastModifiedTime(build, FileTime.fromMillis(now));
      } catch (NoSuchFileException firstRunOfThisBuild) {
        // made by the first weave this run keeps
      } catch (IOException | RuntimeException e) {
        sweepFailed.warnOnce("cannot mark " + build + " as used (" + e + ")");
      }
      try {
        sweeper.execute(
            () -> {
              try {
                sweep(now);
              } catch (Throwable t) {
                sweepFailed.warnOnce("the sweep of " + dir + " failed (" + t + ")");
              }
            });
      } catch (Throwable noThread) {
        // the weave goes on: what is unused is swept by a later run
        sweepFailed.warnOnce("no sweep of " + dir + " this run (" + noThread + ")");
      }
    }
    return build;
  }

  private Weave findBundled(String key) {
    String name = BUNDLED + key + SUFFIX;
    ZipEntry entry = agentJar.getEntry(name);
    if (entry == null) {
      return null;
    }
    try (InputStream in = agentJar.getInputStream(entry)) {
      return decode(in.readAllBytes());
    } catch (IOException | RuntimeException e) {
      bundledDamaged.warnOnce(
          "ignored " + name + " in the agent jar (" + e.getMessage() + "); the class is woven");
      return null;
    }
  }

  private Weave findKept(String key) {
    Path entry = usingBuildDir().resolve(key + SUFFIX);
    byte[] stored;
    try {
      stored = Files.readAllBytes(entry);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      readFailed.warnOnce("cannot read " + entry + " (" + e + "); the class is woven again");
      return null;
    }
    try {
      return decode(stored);
    } catch (IOException | RuntimeException e) {
      String problem = e.getMessage();
      try {
        Files.deleteIfExists(entry);
        damaged.warnOnce(
            "ignored and deleted " + entry + " (" + problem + "); the class is woven again");
      } catch (IOException deleteFailed) {
        damaged.warnOnce(
            "ignored "
                + entry
                + " ("
                + problem
                + ") but cannot delete it ("
                + deleteFailed
                + "); the class is woven again");
      }
      return null;
    }
  }

  /**
   * Keeps a weave under {@code key} in the directory, if there is one, whole or not at all (written
   * aside, then moved in place).
   */
  void store(String key, Weave weave) {
    if (dir == null) {
      return;
    }
    Path build = usingBuildDir();
    Path entry = build.resolve(key + SUFFIX);
    Path written = null;
    try {
      written = createScratch(build, key);
      Files.write(written, encode(weave));
      try {
        Files.move(
            written, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(written, entry, StandardCopyOption.REPLACE_EXISTING);
      }
      written = null;
    } catch (IOException e) {
      writeFailed.warnOnce(
          "cannot write " + entry + " (" + e + "); the class is woven at the next start too");
    } finally {
      if (written != null) {
        try {
          Files.deleteIfExists(written);
        } catch (IOException e) {
          writeFailed.warnOnce("cannot delete " + written + " (" + e + ")");
        }
      }
    }
  }

  static byte[] encode(Weave weave) throws IOException {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(content)) {
      out.writeInt(weave.hooks.size());
      for (String hook : weave.hooks) {
        out.writeUTF(hook);
      }
      out.writeInt(weave.classFile == null ? -1 : weave.classFile.length);
      if (weave.classFile != null) {
        out.write(weave.classFile);
      }
    }
    byte[] body = content.toByteArray();
    ByteArrayOutputStream entry =
        new ByteArrayOutputStream(MAGIC.length + Checksums.BYTES + body.length);
    entry.write(MAGIC);
    entry.write(new Checksums().update(body).value());
    entry.write(body);
    return entry.toByteArray();
  }

  static Weave decode(byte[] stored) throws IOException {
    int bodyStart = MAGIC.length + Checksums.BYTES;
    if (stored.length < bodyStart
        || !Arrays.equals(stored, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new IOException("not a woven class entry");
    }
    byte[] body = Arrays.copyOfRange(stored, bodyStart, stored.length);
    if (!Arrays.equals(
        new Checksums().update(body).value(),
        Arrays.copyOfRange(stored, MAGIC.length, bodyStart))) {
      throw new IOException("its content does not match its checksums");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
      int hookCount = in.readInt();
      List<String> hooks = new ArrayList<>(hookCount);
      for (int i = 0; i < hookCount; i++) {
        hooks.add(in.readUTF());
      }
      int length = in.readInt();
      byte[] classFile = null;
      if (length >= 0) {
        classFile = new byte[length];
        in.readFully(classFile);
      }
      if (in.read() != -1) {
        throw new IOException("bytes after the class file");
      }
      return new Weave(hooks, classFile);
    }
  }

  /**
   * The agent build: every file of its jar by name, size and CRC but the bundled weaves (made from
   * the rest, then added), which any change alters; in the order of their names, so that copying
   * the jar, with or without its directories' entries, keeps it.
   */
  static byte[] jarDigest(ZipFile jar) {
    List<ZipEntry> files = new ArrayList<>(jar.size());
    Enumeration<? extends ZipEntry> entries = jar.entries();
    while (entries.hasMoreElements()) {
      ZipEntry entry = entries.nextElement();
      if (!entry.isDirectory() && !entry.getName().startsWith(BUNDLED)) {
        files.add(entry);
      }
    }
    files.sort(Comparator.comparing(ZipEntry::getName));
    ByteArrayOutputStream listing = new ByteArrayOutputStream(1 << 18);
    try (DataOutputStream out = new DataOutputStream(listing)) {
      for (ZipEntry entry : files) {
        byte[] name = entry.getName().getBytes(StandardCharsets.UTF_8);
        out.writeInt(name.length);
        out.write(name);
        out.writeLong(entry.getSize());
        out.writeLong(entry.getCrc());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return new Checksums().update(listing.toByteArray()).value();
  }

  /** A new scratch file in {@code build}, made with the folder (rwx------) if it is missing. */
  private static Path createScratch(Path build, String key) throws IOException {
    Path scratch = build.resolve(scratchName(key));
    try {
      return Files.createFile(scratch);
    } catch (NoSuchFileException noFolderYet) {
      try {
        Files.createDirectory(build, ownerOnly(build));
      } catch (FileAlreadyExistsException madeByAnotherJvm) {
        // it is there now
      }
      return Files.createFile(scratch);
    }
  }

  /**
   * The run's sweep at {@code nowMillis}: the folders of other builds, and the files of an agent
   * before them, untouched for {@value #UNUSED_BUILD_DAYS} days; the scratch files of writes that
   * never finished (a JVM killed while writing) in this build's folder.
   */
  void sweep(long nowMillis) {
    Path build = buildDir();
    long unusedBefore = nowMillis - TimeUnit.DAYS.toMillis(UNUSED_BUILD_DAYS);
    int deletedBuilds = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (name.startsWith(BUILD_PREFIX) && !entry.equals(build)) {
          deletedBuilds += deleteIfUnused(entry, unusedBefore, true) ? 1 : 0;
        } else if (name.endsWith(SUFFIX) || name.endsWith(SCRATCH_SUFFIX)) {
          deleteIfUnused(entry, unusedBefore, false);
        }
      }
    } catch (IOException | RuntimeException e) {
      // DirectoryIteratorException is unchecked: nothing of the sweep may fail the weave
      sweepFailed.warnOnce("cannot list " + dir + " (" + e + "); what is unused stays");
    }
    if (deletedBuilds > 0) {
      AgentLog.info(
          "weave cache: deleted the weaves of "
              + deletedBuilds
              + " agent build(s) unused for "
              + UNUSED_BUILD_DAYS
              + " days in "
              + dir);
    }
    long orphanedBefore = nowMillis - ORPHANED_SCRATCH_MILLIS;
    try (DirectoryStream<Path> scratch = Files.newDirectoryStream(build, "*" + SCRATCH_SUFFIX)) {
      for (Path file : scratch) {
        deleteIfUnused(file, orphanedBefore, false);
      }
    } catch (NoSuchFileException firstRunOfThisBuild) {
      // nothing to sweep
    } catch (IOException | RuntimeException e) {
      sweepFailed.warnOnce("cannot list " + build + " (" + e + "); unfinished writes stay");
    }
  }

  /**
   * Deletes {@code path} if it is a regular file (with {@code folder}: a directory, with what it
   * holds) last modified before {@code unusedBefore}; a link is never followed nor deleted.
   */
  private boolean deleteIfUnused(Path path, long unusedBefore, boolean folder) {
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (attributes.lastModifiedTime().toMillis() >= unusedBefore) {
        return false;
      }
      if (folder && attributes.isDirectory()) {
        deleteFolder(path);
        return true;
      }
      if (!folder && attributes.isRegularFile()) {
        Files.deleteIfExists(path);
        return true;
      }
    } catch (NoSuchFileException movedIntoPlaceOrSweptByAnother) {
      // a write that just finished, or another JVM's sweep
    } catch (IOException | RuntimeException e) {
      sweepFailed.warnOnce("cannot delete " + path + " (" + e + "); it stays");
    }
    return false;
  }

  private static void deleteFolder(Path folder) throws IOException {
    Files.walkFileTree(
        folder,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path visited, IOException failure)
              throws IOException {
            if (failure != null) {
              throw failure;
            }
            Files.deleteIfExists(visited);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /**
   * A name no other writer uses at once: this process and thread, and a count. Not {@code
   * Files.createTempFile}, whose first use seeds a {@code SecureRandom}.
   */
  private static String scratchName(String prefix) {
    return prefix
        + "."
        + ProcessHandle.current().pid()
        + "."
        + Thread.currentThread().getId()
        + "."
        + SCRATCH.incrementAndGet()
        + SCRATCH_SUFFIX;
  }

  /** One kind of problem, told once a run: the first of its kind says what is wrong. */
  private static final class Warning {
    private final AtomicBoolean told = new AtomicBoolean();

    void warnOnce(String message) {
      if (told.compareAndSet(false, true)) {
        AgentLog.warn("weave cache: " + message);
      }
    }
  }
}
