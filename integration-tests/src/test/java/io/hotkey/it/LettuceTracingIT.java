package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.LettuceTracingResults;
import io.hotkey.it.app.results.RunResults;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lettuce with its tracing on: a hot read answered by the agent still reports the client span
 * Lettuce would have reported for it (named GET, under the caller's trace context, finished),
 * tagged as answered locally; reads that reach Redis keep Lettuce's own span, untagged. Once with a
 * tracing of the app's own, once with Lettuce's {@code MicrometerTracing} on an observation
 * registry that runs Lettuce's observation convention (which requires every span to have an
 * endpoint): there too the reads the agent answers never reach Redis.
 */
class LettuceTracingIT extends RedisTestBase {
  static final int N = 200;

  @ParameterizedTest(name = "lettuce {0}, {1} tracing")
  @CsvSource({
    Clients.LETTUCE_6 + ", recording",
    Clients.LETTUCE_7 + ", recording",
    Clients.LETTUCE_6 + ", micrometer",
    Clients.LETTUCE_7 + ", micrometer"
  })
  void everyReadKeepsItsSpanAndALocalAnswerSaysSo(String version, String tracing) {
    boolean micrometer = tracing.equals("micrometer");
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.app(
                "lettuce-tracing-" + tracing + "-" + version,
                micrometer
                    ? Clients.lettuceWithMicrometerClasspath(version)
                    : Clients.lettuceClasspath(version),
                "io.hotkey.it.app.LettuceTracingApp")
            .hotkeyTestDefaults()
            .args("--redis", redis.address(), "--n", Integer.toString(N), "--tracing", tracing)
            .run(snaps);
    long reads = c.result(LettuceTracingResults.READS);
    long reachedRedis = snaps.calls("get", "tracing", "tracing-done");
    System.out.println(
        "[it] lettuce "
            + version
            + " tracing: "
            + reads
            + " reads, "
            + reachedRedis
            + " reached Redis, "
            + c.result(LettuceTracingResults.GET_SPANS)
            + " GET spans, "
            + c.result(LettuceTracingResults.LOCAL_SPANS)
            + " tagged local, "
            + tracing
            + " tracing");
    Check.all(
        c,
        "lettuce tracing",
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
        () -> assertTrue(c.promoted("lt:traced"), () -> "not promoted"),
        () ->
            assertEquals(
                0, c.result(LettuceTracingResults.MISMATCHES), () -> "a read got another value"),
        () -> assertTrue(reachedRedis < reads / 2, () -> "mostly not served locally"),
        () ->
            assertEquals(
                reads, c.result(LettuceTracingResults.GET_SPANS), () -> "a read without a span"),
        () ->
            assertEquals(
                reads - reachedRedis,
                c.result(LettuceTracingResults.LOCAL_SPANS),
                () -> "local spans are not the reads Redis never saw"),
        () ->
            assertEquals(
                0, c.result(LettuceTracingResults.UNFINISHED_SPANS), () -> "a span never finished"),
        () ->
            assertEquals(
                micrometer ? 0L : (long) c.result(LettuceTracingResults.REACTIVE_READS),
                c.result(LettuceTracingResults.REACTIVE_WITH_OWN_PARENT),
                () -> "a reactive read's span is not under its own trace context"),
        () ->
            assertTrue(
                c.stderr().stream().noneMatch(l -> l.contains("[hotkey] internal error")),
                () -> "agent internal errors"));
  }
}
