package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.results.ReadYourWritesResults;
import io.hotkey.it.app.results.RunResults;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * (c) Invariant 3: once a write through the client has returned, every thread of the JVM reads the
 * new value or a newer one. A writer writes 1..K on a hot key, rotating through SET, pipelined SET,
 * MULTI/EXEC SET and INCR (each leaves the value i), and publishes the last returned write; readers
 * that read right after observing it must never see an older value (a fill racing the write
 * included). The cache must actually have been used, or the proof is empty.
 */
class ReadYourWritesIT extends RedisTestBase {

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    // the oldest and the newest Jedis 3
    a.add(Arguments.of(Clients.JEDIS_3_MATRIX.get(0), Jdk.JDK17));
    a.add(Arguments.of(Clients.JEDIS_3, Jdk.JDK17));
    for (String v : Clients.MODERN) {
      a.add(Arguments.of(v, Jdk.JDK17));
    }
    a.add(Arguments.of(Clients.JEDIS_8, Jdk.JDK25));
    return a.stream();
  }

  @ParameterizedTest(name = "jedis {0} on {1}")
  @MethodSource("cases")
  void aReturnedWriteIsSeenByEveryThread(String version, Jdk jdk) {
    String key = "ryw:counter";
    Snapshots snaps = new Snapshots(redis::stats);
    ChildRun c =
        AgentJvm.jedisApp(version)
            .jdk(jdk)
            .hotkeyTestDefaults()
            .prop("hotkey.cache.ttl", "5s")
            .name("ryw-" + version)
            .args(
                "--scenario",
                "ryw",
                "--redis",
                redis.address(),
                "--key",
                key,
                "--millis",
                "3000",
                "--readers",
                "3")
            .run(snaps);
    Check.all(
        c,
        "ran",
        () -> assertEquals(false, c.timedOut(), () -> "timed out"),
        () -> assertEquals(0, c.exitCode(), () -> "exit code"),
        () -> assertTrue(c.result(RunResults.DONE), () -> "not done"));
    long reads = c.result(ReadYourWritesResults.READS);
    long writes = c.result(ReadYourWritesResults.WRITES);
    long redisGets = snaps.calls("get", "ryw", "ryw-done");
    long redisWrites =
        snaps.calls("set", "ryw", "ryw-done") + snaps.calls("incr", "ryw", "ryw-done");
    System.out.println(
        "[it] ryw "
            + version
            + " on "
            + jdk
            + ": reads="
            + reads
            + " writes="
            + writes
            + " GETs that reached Redis="
            + redisGets
            + " violations="
            + c.result(ReadYourWritesResults.VIOLATIONS)
            + " ("
            + c.result(ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH)
            + ")");
    Check.all(
        c,
        "read your writes",
        () ->
            assertEquals(
                0,
                c.result(ReadYourWritesResults.VIOLATIONS),
                () ->
                    "reads older than the last returned write: "
                        + c.result(ReadYourWritesResults.VIOLATIONS)
                        + " of "
                        + reads
                        + ", by the path of the write that was not seen: "
                        + c.result(ReadYourWritesResults.VIOLATIONS_BY_WRITE_PATH)
                        + ", e.g. "
                        + c.result(ReadYourWritesResults.EXAMPLES)),
        () -> assertTrue(c.promoted(key), () -> "the key was never promoted"),
        () -> assertTrue(writes > 100, () -> "too few writes: " + writes),
        () -> assertEquals(writes, redisWrites, () -> "every SET/INCR reaches Redis"),
        () -> assertTrue(reads > 1000, () -> "too few reads: " + reads),
        () ->
            assertEquals(
                String.valueOf(c.result(ReadYourWritesResults.LAST_RETURNED)),
                c.result(ReadYourWritesResults.FINAL),
                () -> "final read after all writes"),
        () ->
            assertTrue(
                redisGets < reads / 2,
                () ->
                    "the cache was not used: "
                        + redisGets
                        + " of "
                        + reads
                        + " reads reached Redis"));
  }
}
