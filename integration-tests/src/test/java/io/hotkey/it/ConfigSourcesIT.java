package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The configuration contract's sources, highest first: system properties, environment (HOTKEY_X_Y),
 * the agent argument config=/path/file.properties, defaults; and the warning for an unknown key
 * with a suggestion.
 */
class ConfigSourcesIT extends RedisTestBase {

  private static Path configFile(String name, String body) throws Exception {
    Path dir = Files.createDirectories(ItConfig.workDir().resolve("config"));
    Path f = dir.resolve(name);
    Files.writeString(f, body);
    return f;
  }

  @Test
  void agentArgumentFileIsReadAndSystemPropertiesWin() throws Exception {
    Path file =
        configFile(
            "file-then-sysprop.properties",
            "hotkey.detect.threshold=200\nhotkey.detect.window=1s\nhotkey.cache.enabled=false\n");
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .agentArgs("config=" + file)
            .prop("hotkey.cache.enabled", "true")
            .prop("hotkey.detect.treshold", "5")
            .name("config-file")
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "1200")
            .run();
    Check.all(
        c,
        "config file + system properties",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] active: .*threshold=200/s .*sampling=1/4 cache=on"),
                () ->
                    "want threshold=200/s (from the file), sampling=1/4 (auto: 200/s over 1s counts 50 in 4)"
                        + " and cache=on (system property beats the file)"),
        () -> assertTrue(c.promoted("basic:str"), () -> "threshold from the file not applied"),
        () ->
            assertTrue(
                c.stderrMatches(
                    "^\\[hotkey\\] warning: unknown key hotkey\\.detect\\.treshold \\(from [^)]*\\); "
                        + "did you mean hotkey\\.detect\\.threshold\\?"),
                () -> "no unknown-key warning suggesting hotkey.detect.threshold"));
  }

  @Test
  void environmentBeatsTheFile() throws Exception {
    Path file =
        configFile(
            "file-then-env.properties",
            "hotkey.detect.threshold=200\nhotkey.detect.window=1s\nhotkey.cache.enabled=true\n");
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .agentArgs("config=" + file)
            .env("HOTKEY_CACHE_ENABLED", "false")
            .env("HOTKEY_DETECT_SAMPLING", "1")
            .name("config-env")
            .args("--scenario", "basic", "--redis", redis.address(), "--millis", "600")
            .run();
    Check.all(
        c,
        "environment over file",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () ->
            assertEquals(
                0,
                c.result(BasicResults.ERRORS),
                () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)),
        () ->
            assertTrue(
                c.stderrMatches("^\\[hotkey\\] active: .*threshold=200/s .*sampling=1/1 cache=off"),
                () ->
                    "want threshold=200/s (file), sampling=1/1 (HOTKEY_DETECT_SAMPLING) and cache=off"
                        + " (HOTKEY_CACHE_ENABLED beats the file)"));
  }
}
