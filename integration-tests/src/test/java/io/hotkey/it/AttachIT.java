package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.ReadYourWritesResults;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code java -jar hotkey-agent.jar attach <pid>} on a JVM that started without the agent and has
 * already loaded and used Jedis or Lettuce: the agent retransforms the loaded classes, detects the
 * hot key and serves it locally, and the application keeps reading correct values throughout. For
 * Lettuce this is the only run where its reply and argument classes lack the fields the agent adds
 * at load, so replies are tracked by identity and keys read with {@code getFirstEncodedKey}.
 */
class AttachIT extends RedisTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Jdk.class)
  void attachingToARunningJvmTakesEffectOnLoadedClasses(Jdk jdk) {
    Map<String, Long> getCalls = new ConcurrentHashMap<>();
    List<String> attachOutput = new ArrayList<>();
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .withoutAgent()
            .jdk(jdk)
            .prop("hotkey.detect.threshold", "200")
            .name("attach-" + jdk)
            .args("--scenario", "attach", "--redis", redis.address(), "--millis", "2500")
            .run(
                name -> {
                  if (name.startsWith("attach ")) {
                    attachOutput.addAll(attach(jdk, name.substring("attach ".length())));
                  }
                  getCalls.put(name.split(" ")[0], redis.calls("get"));
                  return "";
                });
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput));
    checks.add(
        () ->
            assertFalse(c.result(AttachResults.AGENT_BEFORE), () -> "agent active before attach"));
    checks.add(
        () ->
            assertTrue(
                attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                () -> "attach command output " + attachOutput));
    checks.add(
        () ->
            assertTrue(
                c.stderrContains("(already loaded, retransformed)"),
                () -> "Jedis' loaded classes were not retransformed"));
    checks.add(() -> assertTrue(c.promoted("attach:key"), () -> "never promoted"));
    checks.add(() -> assertEquals(0, c.result(AttachResults.WRONG), () -> "wrong values read"));
    checks.add(
        () -> {
          long reached = getCalls.get("served") - getCalls.get("measured");
          assertTrue(
              reached < 50,
              () -> reached + " of 1000 GETs of the hot key reached Redis after attach");
        });
    Check.all(c, "attach", checks.stream());
  }

  @ParameterizedTest(name = "lettuce {0}")
  @ValueSource(strings = {Clients.LETTUCE_6, Clients.LETTUCE_7})
  void attachingToARunningLettuceApplicationKeepsEveryReturnedWriteVisible(String version) {
    List<String> attachOutput = new ArrayList<>();
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.lettuceApp(version)
            .withoutAgent()
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "5s")
            .name("attach-lettuce-" + version)
            .args("--scenario", "attach-ryw", "--redis", redis.address(), "--millis", "3000")
            .run(
                name -> {
                  if (name.startsWith("attach ")) {
                    attachOutput.addAll(attach(Jdk.JDK17, name.substring("attach ".length())));
                  }
                  return snaps.onSync(name);
                });
    long reads = c.result(ReadYourWritesResults.READS);
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    System.out.println(
        "[it] attach lettuce "
            + version
            + ": reads="
            + reads
            + " writes="
            + c.result(ReadYourWritesResults.WRITES)
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result(ReadYourWritesResults.VIOLATIONS));
    Check.all(
        c,
        "attach lettuce",
        Stream.concat(
            Stream.<Executable>of(
                () -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput),
                () ->
                    assertFalse(
                        c.result(AttachResults.AGENT_BEFORE), () -> "agent active before attach"),
                () ->
                    assertTrue(
                        attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                        () -> "attach command output " + attachOutput),
                () ->
                    assertTrue(
                        c.stderrContains(
                            "io.lettuce.core.RedisChannelHandler (already loaded, retransformed)"),
                        () -> "Lettuce's loaded classes were not retransformed"),
                () ->
                    assertFalse(
                        c.stderrContains("instrumented io.lettuce.core.output.CommandOutput"),
                        () ->
                            "CommandOutput was extended, so the identity fallback was not what ran"),
                () ->
                    assertFalse(
                        c.stderrContains("instrumented io.lettuce.core.protocol.CommandArgs"),
                        () -> "CommandArgs was extended, so getFirstEncodedKey was not what ran"),
                () ->
                    assertEquals(
                        0,
                        c.result(ReadYourWritesResults.JMX.agentErrors()),
                        () -> "agent errors")),
            LettuceIT.readYourWritesChecks(c, reads, redisGets)));
  }

  static List<String> attach(Jdk jdk, String pid) throws Exception {
    Process attach =
        new ProcessBuilder(
                jdk.java().toString(), "-jar", ItConfig.agentJar().toString(), "attach", pid)
            .redirectErrorStream(true)
            .start();
    if (!attach.waitFor(60, TimeUnit.SECONDS)) {
      attach.destroyForcibly();
      throw new IllegalStateException("attach did not finish in 60s");
    }
    String output = new String(attach.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>(List.of(output.split("\\R")));
    lines.add("exit=" + attach.exitValue());
    return lines;
  }
}
