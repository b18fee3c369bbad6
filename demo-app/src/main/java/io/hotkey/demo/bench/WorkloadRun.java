package io.hotkey.demo.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.hotkey.demo.load.SkewedPicker;
import io.hotkey.demo.redis.RedisEndpoint;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The child JVM of {@link CompareRuns}: runs one workload against Redis on a pooled Jedis client.
 * It warms up, prints {@value #WARMED_UP}, waits for {@value #GO} on stdin so the parent can read
 * Redis' counters while no command is in flight, then measures and prints a {@link RunResult} line.
 *
 * <p>{@code --redis redis://host:port --workload cold|storm --threads N --warmup S --seconds S}
 */
public final class WorkloadRun {

    static final String WARMED_UP = "WARMED_UP";
    static final String GO = "GO";

    private final RedisClient redis;
    private final Workload workload;
    private final int threads;

    private WorkloadRun(RedisClient redis, Workload workload, int threads) {
        this.redis = redis;
        this.workload = workload;
        this.threads = threads;
    }

    public static void main(String[] args) throws Exception {
        URI redisUri = null;
        Workload workload = null;
        int threads = 0;
        int warmupSeconds = -1;
        int seconds = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--redis" -> redisUri = URI.create(args[i + 1]);
                case "--workload" -> workload = Workload.named(args[i + 1]);
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmupSeconds = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (redisUri == null || workload == null || threads <= 0 || warmupSeconds < 0 || seconds <= 0) {
            throw new IllegalArgumentException("usage: WorkloadRun --redis URI --workload cold|storm"
                    + " --threads N --warmup S --seconds S");
        }
        try (RedisClient redis = RedisEndpoint.external(redisUri).newPooledClient(threads)) {
            WorkloadRun run = new WorkloadRun(redis, workload, threads);
            run.drive(Duration.ofSeconds(warmupSeconds));
            System.out.println(WARMED_UP);
            System.out.flush();
            BufferedReader parent = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!GO.equals(parent.readLine())) {
                throw new IllegalStateException("parent did not say " + GO);
            }
            System.out.println(run.drive(Duration.ofSeconds(seconds)).toLine());
            System.out.flush();
        }
    }

    /** Runs the workload on all threads for {@code duration} and returns once every thread has stopped. */
    private RunResult drive(Duration duration) throws InterruptedException {
        List<Worker> workers = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        for (int i = 0; i < threads; i++) {
            Worker worker = new Worker(deadline);
            worker.setName("workload-" + (i + 1));
            worker.start();
            workers.add(worker);
        }
        long gets = 0;
        long sets = 0;
        long errors = 0;
        for (Worker worker : workers) {
            worker.join();
            gets += worker.gets;
            sets += worker.sets;
            errors += worker.errors;
        }
        return new RunResult(gets + sets, gets, sets, errors, (System.nanoTime() - start) / 1e9);
    }

    private final class Worker extends Thread {

        private final long deadlineNanos;
        private final SplittableRandom random = new SplittableRandom();
        // Written by this thread only and read after join(), which orders the reads after the writes.
        private long gets;
        private long sets;
        private long errors;

        Worker(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        @Override
        public void run() {
            SkewedPicker keys = workload.keys();
            while (System.nanoTime() < deadlineNanos) {
                String key = Workload.key(keys.next(random));
                try {
                    if (random.nextDouble() < workload.writeShare()) {
                        redis.set(key, Workload.VALUE);
                        sets++;
                    } else {
                        redis.get(key);
                        gets++;
                    }
                } catch (JedisException e) {
                    errors++;
                }
            }
        }
    }
}
