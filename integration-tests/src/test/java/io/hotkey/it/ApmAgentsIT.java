package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ReadYourWritesResults;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent beside the APM agents users already run, as released on Maven Central: loaded before
 * ours, after ours, and ours attached at run time after theirs. Every hook must weave (no internal
 * error, no module standing down), a returned write must be seen by every thread, and hot keys must
 * still be served. OpenTelemetry is the case that broke: it adds interfaces it generates at run
 * time to the very Lettuce classes this agent weaves. Two cases run at a time, each on a Redis of
 * its own.
 */
@AfterTheSideLane
class ApmAgentsIT {
  @RegisterExtension static final RedisLanes lanes = new RedisLanes();

  enum Apm {
    OPENTELEMETRY("opentelemetry-javaagent-2.22.0.jar"),
    DATADOG("dd-java-agent-1.56.0.jar");

    final String jar;

    Apm(String jar) {
      this.jar = jar;
    }

    String javaagent() {
      return "-javaagent:" + ItConfig.apmAgent(jar);
    }

    /** What keeps the agent from exporting, or from reaching anything but loopback. */
    List<String> quietOptions() {
      return switch (this) {
        case OPENTELEMETRY ->
            List.of(
                "-Dotel.traces.exporter=none",
                "-Dotel.metrics.exporter=none",
                "-Dotel.logs.exporter=none");
        case DATADOG ->
            List.of(
                "-Ddd.profiling.enabled=false",
                "-Ddd.remote_config.enabled=false",
                "-Ddd.instrumentation.telemetry.enabled=false",
                "-Ddd.agent.host=127.0.0.1",
                "-Ddd.trace.agent.port=1");
      };
    }
  }

  /** Where the APM agent stands relative to ours. */
  enum Order {
    APM_FIRST,
    APM_SECOND,
    OURS_ATTACHED_LATER
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Apm apm : Apm.values()) {
      for (Order order : Order.values()) {
        cases.add(Arguments.of(apm, order, "lettuce"));
        if (order != Order.OURS_ATTACHED_LATER) {
          cases.add(Arguments.of(apm, order, "jedis"));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Execution(ExecutionMode.CONCURRENT)
  void everyHookWeavesAndEveryReturnedWriteIsSeen(Apm apm, Order order, String client)
      throws InterruptedException {
    lanes.onFreeServer(
        redis -> everyHookWeavesAndEveryReturnedWriteIsSeen(redis, apm, order, client));
  }

  private static void everyHookWeavesAndEveryReturnedWriteIsSeen(
      RedisServer redis, Apm apm, Order order, String client) {
    Snapshots snaps = new Snapshots(redis::stats);
    AgentJvm jvm =
        client.equals("jedis")
            ? AgentJvm.jedisApp(Clients.JEDIS_8).args("--readers", "3")
            : AgentJvm.lettuceApp(Clients.LETTUCE_7);
    jvm.hotkeyTestDefaults()
        .prop("hotkey.cache.ttl", "5s")
        .name("apm-" + apm + "-" + order + "-" + client)
        .args(
            "--scenario",
            order == Order.OURS_ATTACHED_LATER ? "attach-ryw" : "ryw",
            "--redis",
            redis.address(),
            "--millis",
            "3000");
    for (String option : apm.quietOptions()) {
      jvm.jvmOption(option);
    }
    switch (order) {
      case APM_FIRST -> jvm.jvmOption(apm.javaagent());
      case APM_SECOND -> jvm.jvmOptionAfterAgent(apm.javaagent());
      case OURS_ATTACHED_LATER -> jvm.jvmOption(apm.javaagent()).withoutAgent();
    }
    List<String> attachOutput = new ArrayList<>();
    ChildRun c =
        jvm.run(
            name -> {
              if (name.startsWith("attach ")) {
                attachOutput.addAll(AttachIT.attach(Jdk.JDK17, name.substring("attach ".length())));
              }
              return snaps.onSync(name);
            });
    long reads = c.result(ReadYourWritesResults.READS);
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    System.out.println(
        "[it] "
            + apm
            + " "
            + order
            + " "
            + client
            + ": reads="
            + reads
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result(ReadYourWritesResults.VIOLATIONS));
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(0, c.exitCode(), () -> "exit code; attach said " + attachOutput));
    checks.add(
        () ->
            assertFalse(
                c.stderrContains("[hotkey] internal error"),
                () -> "the agent failed inside beside " + apm));
    checks.add(
        () ->
            assertFalse(
                c.stderrContains("stops serving"), () -> "a module stood down beside " + apm));
    checks.add(
        () ->
            assertTrue(
                c.stderrContains(
                    client.equals("jedis")
                        ? "instrumented redis.clients.jedis.Connection"
                        : "instrumented io.lettuce.core.protocol.CommandHandler"),
                () -> "the client's classes were not woven beside " + apm));
    Check.all(
        c,
        apm + " " + order + " " + client,
        Stream.concat(checks.stream(), LettuceIT.readYourWritesChecks(c, reads, redisGets)));
  }
}
