package io.hotkey.demo.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import io.hotkey.demo.redis.CommandStats;
import io.hotkey.demo.redis.RedisEndpoint;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The benchmark behind the product's performance claims: the same workload against the same Redis,
 * once in a JVM without the agent and once with it, side by side. Redis' own counters
 * ({@code INFO commandstats}, read by this parent around each measured phase) say what reached the server.
 *
 * <pre>java -cp hotkey-demo.jar io.hotkey.demo.bench.CompareRuns --agent agent/target/hotkey-agent.jar
 *      --workload cold|storm [--client jedis|lettuce-sync|lettuce-async] [--seconds 20] [--threads 8] [--warmup 5]</pre>
 *
 * <p>{@code --client} picks the Redis client both children use (default {@code jedis}).
 *
 * System properties {@code -Dhotkey.*} given to this command are passed on to the run with the agent.
 */
public final class CompareRuns {

    private static final String USAGE = "usage: java -cp hotkey-demo.jar io.hotkey.demo.bench.CompareRuns"
            + " --agent path/to/hotkey-agent.jar --workload cold|storm [--client jedis|lettuce-sync|lettuce-async]"
            + " [--seconds 20] [--threads 8] [--warmup 5]";
    private static final long CHILD_GRACE_SECONDS = 120;

    /** One child's own report and what Redis counted during its measured phase. */
    record Measured(RunResult run, long redisGets, long redisSets) {
    }

    private CompareRuns() {
    }

    public static void main(String[] args) throws Exception {
        Path agent = null;
        Workload workload = null;
        Client client = Client.JEDIS;
        int seconds = 20;
        int threads = 8;
        int warmup = 5;
        try {
            BenchArgs options = BenchArgs.parse(args, "--agent", "--workload", "--client", "--seconds", "--threads",
                    "--warmup");
            agent = options.text("--agent").map(Path::of).orElse(null);
            workload = options.text("--workload").map(Workload::named).orElse(null);
            client = options.text("--client").map(Client::named).orElse(Client.JEDIS);
            seconds = options.wholeNumber("--seconds", 20, 1);
            threads = options.wholeNumber("--threads", 8, 1);
            warmup = options.wholeNumber("--warmup", 5, 0);
            if (agent == null || workload == null) {
                throw new IllegalArgumentException("--agent and --workload are required");
            }
            if (!Files.isRegularFile(agent)) {
                throw new IllegalArgumentException("agent jar not found: " + agent.toAbsolutePath()
                        + " (build it first: mvn -q -DskipTests install)");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("CompareRuns: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        }
        compare(agent, workload, client, seconds, threads, warmup, System.out);
    }

    private static void compare(Path agent, Workload workload, Client client, int seconds, int threads, int warmup,
                                PrintStream out) throws IOException, InterruptedException {
        try (RedisEndpoint redis = RedisEndpoint.fromEnvironment();
             Jedis stats = redis.newConnection()) {
            redis.announce(stats, out);
            out.printf("workload %s: %s; %d client threads; %d s warm-up, %d s measured per run%n",
                    workload.cliName(), workload.description(), threads, warmup, seconds);
            out.printf("client %s: %s%n", client.cliName(), client.description());
            try (RedisClient seeding = redis.newPooledClient(1)) {
                workload.seed(seeding);
            }
            out.printf("seeded %,d keys%n", workload.keys().keyCount());
            out.println("run 1/2: without the agent");
            Measured without = runChild(redis, stats, workload, client, threads, warmup, seconds, Optional.empty(),
                    out);
            out.println("run 2/2: with -javaagent:" + agent);
            Measured with = runChild(redis, stats, workload, client, threads, warmup, seconds, Optional.of(agent),
                    out);
            printTable(without, with, out);
        }
    }

    /** Starts one child JVM, reads Redis' counters around its measured phase and returns both views. */
    static Measured runChild(RedisEndpoint redis, Jedis stats, Workload workload, Client client, int threads,
                             int warmup, int seconds, Optional<Path> agent, PrintStream out)
            throws IOException, InterruptedException {
        List<String> args = List.of("--redis", redis.uri().toString(),
                "--workload", workload.cliName(),
                "--client", client.cliName(),
                "--threads", Integer.toString(threads),
                "--warmup", Integer.toString(warmup),
                "--seconds", Integer.toString(seconds));
        try (ChildJvm child = ChildJvm.start(WorkloadRun.class, args, agent, List.of(),
                warmup + seconds + CHILD_GRACE_SECONDS, out)) {
            child.awaitLine(WorkloadRun.WARMED_UP::equals);
            CommandStats before = CommandStats.read(stats);
            child.send(WorkloadRun.GO);
            RunResult run = RunResult.parse(child.awaitLine(RunResult::isResultLine));
            CommandStats after = CommandStats.read(stats);
            child.finish();
            return new Measured(run, after.callsSince(before, "get"), after.callsSince(before, "set"));
        }
    }

    private static void printTable(Measured without, Measured with, PrintStream out) {
        out.println();
        out.println("|                                | without agent | with agent |  change |");
        out.println("|--------------------------------|--------------:|-----------:|--------:|");
        row(out, "throughput (ops/s)", without.run().opsPerSecond(), with.run().opsPerSecond(),
                String.format("x%.2f", with.run().opsPerSecond() / without.run().opsPerSecond()));
        row(out, "GET calls the app made", without.run().gets(), with.run().gets(), "");
        row(out, "GET calls Redis executed", without.redisGets(), with.redisGets(),
                percentChange(without.redisGets(), with.redisGets()));
        row(out, "Redis GETs per 1,000 app GETs", perThousand(without), perThousand(with),
                percentChange(perThousand(without), perThousand(with)));
        row(out, "SET calls Redis executed", without.redisSets(), with.redisSets(), "");
        row(out, "errors", without.run().errors(), with.run().errors(), "");
        out.printf("measured %.1f s without and %.1f s with the agent%n", without.run().seconds(), with.run().seconds());
    }

    private static double perThousand(Measured measured) {
        return measured.run().gets() == 0 ? 0 : 1000.0 * measured.redisGets() / measured.run().gets();
    }

    private static String percentChange(double without, double with) {
        return without == 0 ? "" : String.format("%+.1f%%", 100 * (with - without) / without);
    }

    private static void row(PrintStream out, String label, double without, double with, String change) {
        out.printf("| %-30s | %13s | %10s | %7s |%n", label, String.format("%,.0f", without),
                String.format("%,.0f", with), change);
    }
}
