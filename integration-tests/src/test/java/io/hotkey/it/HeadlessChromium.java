package io.hotkey.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium}, headless, in a fresh profile each time: the page's script runs for a
 * few seconds of virtual time (its one-second polls included), then the DOM or a screenshot is
 * taken.
 */
final class HeadlessChromium {
  private static final String VIRTUAL_TIME_MILLIS = "5000";

  private HeadlessChromium() {}

  /** The DOM, serialized, after the page's script ran. */
  static String dumpDom(String url) throws IOException, InterruptedException {
    return run(url, "--dump-dom");
  }

  static void screenshot(String url, Path png) throws IOException, InterruptedException {
    Files.deleteIfExists(png);
    run(url, "--screenshot=" + png, "--window-size=1280,1400", "--hide-scrollbars");
    if (!Files.isRegularFile(png)) {
      throw new AssertionError("chromium wrote no screenshot to " + png);
    }
  }

  private static String run(String url, String... what) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("hotkey-chromium-");
    List<String> command = new ArrayList<>();
    command.add(binary());
    command.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--user-data-dir=" + profile,
            "--virtual-time-budget=" + VIRTUAL_TIME_MILLIS));
    command.addAll(List.of(what));
    command.add(url);
    Path log = Files.createTempFile("hotkey-chromium-", ".log");
    Process chromium =
        new ProcessBuilder(command)
            .redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    chromium.getOutputStream().close();
    byte[] out = chromium.getInputStream().readAllBytes();
    try {
      if (!chromium.waitFor(60, TimeUnit.SECONDS)) {
        chromium.descendants().forEach(ProcessHandle::destroyForcibly);
        chromium.destroyForcibly();
        throw new AssertionError("chromium did not finish in 60s: " + command);
      }
      if (chromium.exitValue() != 0) {
        throw new AssertionError(
            "chromium exited " + chromium.exitValue() + ": " + Files.readString(log));
      }
      return new String(out, StandardCharsets.UTF_8);
    } finally {
      deleteTree(profile);
      Files.deleteIfExists(log);
    }
  }

  private static String binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "chromium");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new AssertionError(
        "no chromium on PATH: apt-get install chromium (scripts/install-test-packages.sh installs it when mvn verify runs as root)");
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
    }
  }
}
