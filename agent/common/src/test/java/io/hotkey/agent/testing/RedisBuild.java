package io.hotkey.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/** Which redis-server a test runs: the versions users run differ in protocol and tracking. */
public enum RedisBuild {
  /** Redis 6.2, the Linux binary inside the embedded-redis test jar. */
  EMBEDDED_6_2 {
    @SuppressWarnings("ImmutableEnumChecker") // extracted once, under the enum's lock
    private Path extracted;

    @Override
    synchronized Path binary() throws IOException {
      if (extracted == null) {
        String resource = "/redis-server-6.2.6-v5-linux-amd64";
        Path file = Files.createTempFile("redis-server-", "");
        try (InputStream in = RedisBuild.class.getResourceAsStream(resource)) {
          if (in == null) {
            throw new IOException(
                "resource " + resource + " not on the test class path (embedded-redis 1.4.3 jar)");
          }
          Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!file.toFile().setExecutable(true)) {
          throw new IOException("cannot make " + file + " executable");
        }
        file.toFile().deleteOnExit();
        extracted = file;
      }
      return extracted;
    }
  },

  /**
   * Debian's Redis 7 at /usr/bin/redis-server; the build's setup step installs it (see
   * scripts/install-test-packages.sh).
   */
  DEBIAN_7 {
    @Override
    Path binary() throws IOException {
      Path binary = Paths.get("/usr/bin/redis-server");
      String missing =
          "this test needs Debian's Redis 7 at "
              + binary
              + ": run `apt-get install redis-server`"
              + " (scripts/install-test-packages.sh does it as root)";
      if (!Files.isExecutable(binary)) {
        throw new IOException(missing);
      }
      Process version = new ProcessBuilder(binary.toString(), "--version").start();
      String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!text.contains(" v=7.")) {
        throw new IOException(missing + "; found: " + text.trim());
      }
      return binary;
    }
  };

  abstract Path binary() throws IOException;
}
