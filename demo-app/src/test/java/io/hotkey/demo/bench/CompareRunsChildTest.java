package io.hotkey.demo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.hotkey.demo.redis.RedisEndpoint;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** The no-agent half of the benchmark: a real child JVM against a real Redis. */
class CompareRunsChildTest {

    @ParameterizedTest
    @EnumSource(Client.class)
    void childRunWithoutAgentReportsWhatRedisCountedDuringTheMeasuredPhase(Client client) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (RedisEndpoint redis = RedisEndpoint.startEmbedded();
             Jedis stats = redis.newConnection();
             RedisClient seeding = redis.newPooledClient(1)) {
            Workload.STORM.seed(seeding);

            CompareRuns.Measured measured = CompareRuns.runChild(redis, stats, Workload.STORM, client, 2, 1, 1,
                    Optional.empty(), new PrintStream(log, true, StandardCharsets.UTF_8));

            RunResult run = measured.run();
            assertTrue(run.ops() > 0, "the child did no work; its output: " + log);
            assertEquals(0, run.errors());
            assertEquals(run.gets() + run.sets(), run.ops());
            assertTrue(run.seconds() >= 1.0 && run.seconds() < 5, "measured " + run.seconds() + " s");
            // Warm-up traffic (async: every command sent, completed) stops before the parent's first snapshot,
            // so without an agent the counts match exactly.
            assertEquals(run.gets(), measured.redisGets());
            assertEquals(run.sets(), measured.redisSets());
        }
    }

    @Test
    void clientNamesRoundTrip() {
        for (Client client : Client.values()) {
            assertEquals(client, Client.named(client.cliName()));
        }
        assertEquals("lettuce-async", Client.LETTUCE_ASYNC.cliName());
    }

    @Test
    void resultLineRoundTrips() {
        RunResult result = new RunResult(1_000, 980, 20, 1, 2.5);
        assertTrue(RunResult.isResultLine(result.toLine()));
        assertEquals(result, RunResult.parse(result.toLine()));
        assertEquals(400.0, result.opsPerSecond());
    }
}
