package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.PretendJava8;
import io.hotkey.it.app.results.AttachResults;
import io.hotkey.it.app.results.BasicResults;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On a JVM older than Java 11 the agent says so once and does nothing else. Only JDK 17 and 25 are
 * at hand, so each child runs {@link PretendJava8} as an agent before ours: it sets {@code
 * java.specification.version} to what Java 8 reports, and the agent's version check, unchanged,
 * takes the branch a Java 8 JVM takes. That the entry class itself loads on Java 8 is checked from
 * its class file ({@code HotkeyAgentClassFileTest}, and its version here in the built jar).
 */
class TooOldJavaIT extends RedisTestBase {
  private static final String TOO_OLD_LINE =
      "[hotkey] Hotkey Agent needs Java 11 or later; this JVM is Java "
          + PretendJava8.JAVA_8_SPECIFICATION_VERSION
          + ", so the agent is inactive";

  private static Path pretendJava8Jar;

  @BeforeAll
  static void buildPretendJava8Jar() throws IOException {
    pretendJava8Jar = ItConfig.workDir().resolve("pretend-java8.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", PretendJava8.class.getName());
    String classFile = PretendJava8.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(pretendJava8Jar);
        JarOutputStream jar = new JarOutputStream(out, manifest)) {
      jar.putNextEntry(new JarEntry(classFile));
      Files.copy(ItConfig.appClasses().resolve(classFile), jar);
      jar.closeEntry();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Jdk.class)
  void theApplicationRunsUntouchedAndTheAgentSaysWhyOnce(Jdk jdk) {
    BasicRun run =
        BasicRun.run(
            AgentJvm.jedisApp(Clients.JEDIS_8)
                .jdk(jdk)
                .jvmOption("-javaagent:" + pretendJava8Jar)
                .hotkeyTestDefaults(),
            redis,
            "too-old-java",
            1200);
    ChildRun c = run.child();
    CommandStats used = run.used();
    Check.all(
        c,
        "too old java",
        run.ranWithRedisValuesAnd(
            () -> assertEquals(List.of(TOO_OLD_LINE), c.hotkeyLines(), () -> "the agent's lines"),
            () ->
                assertEquals(
                    c.result(BasicResults.GETS),
                    used.calls("get"),
                    () -> "every GET the application sent reaches Redis: " + used),
            () -> assertEquals(0, used.calls("client|tracking"), () -> "tracking was turned on"),
            () -> assertFalse(c.result(BasicResults.JMX.registered()), () -> "the MXBean")));
  }

  @Test
  void attachingSaysWhyOnceAndLeavesTheApplicationAlone() {
    Map<String, Long> getCalls = new ConcurrentHashMap<>();
    List<String> attachOutput = new ArrayList<>();
    ChildRun c =
        AgentJvm.jedisApp(Clients.JEDIS_8)
            .withoutAgent()
            .jvmOption("-javaagent:" + pretendJava8Jar)
            .prop("hotkey.detect.threshold", "200")
            .name("too-old-java-attach")
            .args("--scenario", "attach", "--redis", redis.address(), "--millis", "1500")
            .run(
                name -> {
                  if (name.startsWith("attach ")) {
                    attachOutput.addAll(AttachIT.attach(Jdk.JDK17, name.substring(7)));
                  }
                  getCalls.put(name.split(" ")[0], redis.calls("get"));
                  return "";
                });
    Check.all(
        c,
        "too old java, attached",
        () -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput),
        () ->
            assertTrue(
                attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                () -> "attach command output " + attachOutput),
        () -> assertEquals(List.of(TOO_OLD_LINE), c.hotkeyLines(), () -> "the agent's lines"),
        () -> assertEquals(0, c.result(AttachResults.WRONG), () -> "wrong values read"),
        () ->
            assertEquals(
                1_000,
                getCalls.get("served") - getCalls.get("measured"),
                () -> "GETs of the hot key that reached Redis after attach, of 1000"));
  }

  /** {@code java -jar hotkey-agent.jar ...} says the same and exits with 1. */
  @Test
  void theCommandLineSaysWhyAndStops() {
    ChildRun c =
        AgentJvm.app("too-old-java-cli", ItConfig.agentJar().toString(), mainClassOfAgentJar())
            .withoutAgent()
            .jvmOption("-javaagent:" + pretendJava8Jar)
            .args("version")
            .run();
    Check.all(
        c,
        "too old java, command line",
        () -> assertEquals(1, c.exitCode(), () -> "exit code"),
        () -> assertEquals(List.of(TOO_OLD_LINE), c.stderr(), () -> "stderr"),
        () -> assertEquals(List.of(), c.stdout(), () -> "stdout"));
  }

  /** The shaded jar's entry class is still the Java 8 class file the build compiled. */
  @Test
  void theJarsEntryClassIsAJava8ClassFile() throws IOException {
    try (JarFile jar = new JarFile(ItConfig.agentJar().toFile())) {
      Attributes manifest = jar.getManifest().getMainAttributes();
      String entry = manifest.getValue("Premain-Class");
      assertEquals(entry, manifest.getValue("Agent-Class"));
      assertEquals(entry, manifest.getValue("Main-Class"));
      try (InputStream in = jar.getInputStream(jar.getEntry(entry.replace('.', '/') + ".class"))) {
        byte[] header = in.readNBytes(8);
        assertEquals(52, ((header[6] & 0xff) << 8) | (header[7] & 0xff), "class file version");
      }
    }
  }

  private static String mainClassOfAgentJar() {
    try (JarFile jar = new JarFile(ItConfig.agentJar().toFile())) {
      return jar.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
