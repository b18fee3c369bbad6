package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The properties file a running agent reads ({@code hotkey.config}) and the reload tests edit while
 * it runs, saved as an editor that saves by rename does. Keys the tests change live only here:
 * {@code -D} would outrank the file.
 */
final class LiveConfigFile {
  /** Where the reload tests start: a key read at 600/s is hot, and cools down within a second. */
  static final String START =
      "hotkey.detect.threshold=200\nhotkey.detect.cool-down=1s\nhotkey.report.interval=0\n";

  private final Path path;

  private LiveConfigFile(Path path) {
    this.path = path;
  }

  /** {@code hotkey.properties} in {@code dir}, holding {@code content}. */
  static LiveConfigFile create(Path dir, String content) throws IOException {
    LiveConfigFile file = new LiveConfigFile(dir.resolve("hotkey.properties"));
    file.save(content);
    return file;
  }

  Path path() {
    return path;
  }

  /** Replaces the file at once, as an editor that saves by rename does. */
  void save(String content) throws IOException {
    Path next = path.resolveSibling(path.getFileName() + ".next");
    Files.writeString(next, content, StandardCharsets.UTF_8);
    Files.move(next, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** {@code LiveLoadApp} on Jedis reading {@code redis}, its agent configured by this file. */
  AgentJvm liveLoadApp(String name, RedisServer redis) {
    return AgentJvm.app(
            name, Clients.jedisClasspath(Clients.JEDIS_8), "io.hotkey.it.app.LiveLoadApp")
        .prop("hotkey.config", path.toString())
        .args("--redis", redis.address())
        .name(name);
  }

  /**
   * The agent line {@code text} within two seconds of the edit: the file is polled every second and
   * an edit applies within two.
   */
  static void assertLine(RunningJvm jvm, String text) throws InterruptedException {
    assertTrue(
        jvm.awaitAgentLine(Pattern.quote(text), Duration.ofSeconds(2)),
        () -> "no line " + text + " within 2 s:\n" + jvm.output());
  }

  /** The reload line naming {@code change} ({@code key: before -> after}) within two seconds. */
  static void assertReloaded(RunningJvm jvm, String change) throws InterruptedException {
    assertTrue(
        jvm.awaitAgentLine(reloadLine(change), Duration.ofSeconds(2)),
        () -> "no reload of " + change + " within 2 s:\n" + jvm.output());
  }

  /** A regular expression for the reload line that names {@code change} among others. */
  static String reloadLine(String change) {
    return "configuration reloaded: (.*, )?" + Pattern.quote(change) + "(,|$)";
  }
}
