package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.BasicResults;
import io.hotkey.it.app.results.RunResults;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;

/**
 * The Jedis app's {@code basic} scenario run once in a child JVM, and the commands Redis counted
 * while it ran.
 */
record BasicRun(ChildRun child, CommandStats used) {
  static BasicRun run(AgentJvm jvm, RedisServer redis, String name, long millis) {
    CommandStats before = redis.stats();
    ChildRun c =
        jvm.name(name)
            .args(
                "--scenario",
                "basic",
                "--redis",
                redis.address(),
                "--millis",
                Long.toString(millis))
            .run();
    return new BasicRun(c, redis.stats().minus(before));
  }

  /** It ran to its end and every value it read was the one it wrote; then {@code more}. */
  Stream<Executable> ranWithRedisValuesAnd(Executable... more) {
    ChildRun c = child;
    Stream<Executable> ran =
        Stream.of(
            () -> assertFalse(c.timedOut(), () -> "timed out"),
            () -> assertEquals(0, c.exitCode(), () -> "exit code"),
            () -> assertTrue(c.result(RunResults.DONE), () -> "not done"),
            () ->
                assertEquals(
                    0,
                    c.result(BasicResults.ERRORS),
                    () -> "wrong values: " + c.result(BasicResults.ERROR_SAMPLES)));
    return Stream.concat(ran, Stream.of(more));
  }
}
