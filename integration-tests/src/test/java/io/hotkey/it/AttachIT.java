package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code java -jar hotkey-agent.jar attach <pid>} on a JVM that started without the agent and has
 * already loaded and used Jedis: the agent retransforms the loaded classes, detects the hot key and
 * serves it locally, and the application keeps reading correct values throughout.
 */
class AttachIT extends RedisTestBase {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Jdk.class)
    void attachingToARunningJvmTakesEffectOnLoadedClasses(Jdk jdk) {
        Map<String, Long> getCalls = new ConcurrentHashMap<>();
        List<String> attachOutput = new ArrayList<>();
        ChildRun c = AgentJvm.jedisApp(Clients.JEDIS_8).withoutAgent().jdk(jdk)
                .prop("hotkey.detect.threshold", "200")
                .name("attach-" + jdk)
                .args("--scenario", "attach", "--redis", redis.address(), "--millis", "2500")
                .run(name -> {
                    if (name.startsWith("attach ")) {
                        attachOutput.addAll(attach(jdk, name.substring("attach ".length())));
                    }
                    getCalls.put(name.split(" ")[0], redis.calls("get"));
                    return "";
                });
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput));
        checks.add(() -> assertEquals("false", c.result("attach.agentBefore"), () -> "agent active before attach"));
        checks.add(() -> assertTrue(attachOutput.stream().anyMatch(l -> l.startsWith("attached Hotkey Agent")),
                () -> "attach command output " + attachOutput));
        checks.add(() -> assertTrue(c.stderrContains("(already loaded, retransformed)"),
                () -> "Jedis' loaded classes were not retransformed"));
        checks.add(() -> assertTrue(c.promoted("attach:key"), () -> "never promoted"));
        checks.add(() -> assertEquals(0, c.resultLong("attach.wrong"), () -> "wrong values read"));
        checks.add(() -> {
            long reached = getCalls.get("served") - getCalls.get("measured");
            assertTrue(reached < 50, () -> reached + " of 1000 GETs of the hot key reached Redis after attach");
        });
        Check.all(c, "attach", checks.stream());
    }

    private static List<String> attach(Jdk jdk, String pid) throws Exception {
        Process attach = new ProcessBuilder(jdk.java().toString(), "-jar", ItConfig.agentJar().toString(), "attach", pid)
                .redirectErrorStream(true).start();
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
