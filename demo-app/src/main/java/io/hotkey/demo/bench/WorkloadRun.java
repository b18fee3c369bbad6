package io.hotkey.demo.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.hotkey.demo.load.SkewedPicker;
import io.hotkey.demo.redis.RedisEndpoint;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@link CompareRuns}: runs one workload against Redis with one {@link Client}.
 * It warms up, prints {@value #WARMED_UP}, waits for {@value #GO} on stdin so the parent can read
 * Redis' counters while no command is in flight, then measures and prints a {@link RunResult} line.
 *
 * <p>{@code --redis redis://host:port --workload cold|storm --client jedis|lettuce-sync|lettuce-async
 * --threads N --warmup S --seconds S}
 */
public final class WorkloadRun {

    static final String WARMED_UP = "WARMED_UP";
    static final String GO = "GO";
    /** Commands each thread keeps in flight with {@link Client#LETTUCE_ASYNC}. */
    static final int ASYNC_IN_FLIGHT = 16;
    private static final long DRAIN_SECONDS = 30;

    /** A synchronous key-value API: a Jedis client or Lettuce's sync commands. */
    private interface SyncCommands {
        void get(String key);

        void set(String key, String value);
    }

    private final Workload workload;
    private final int threads;
    private final SyncCommands sync;
    private final RedisAsyncCommands<String, String> async;

    private WorkloadRun(Workload workload, int threads, SyncCommands sync, RedisAsyncCommands<String, String> async) {
        this.workload = workload;
        this.threads = threads;
        this.sync = sync;
        this.async = async;
    }

    public static void main(String[] args) throws Exception {
        URI redisUri = null;
        Workload workload = null;
        Client client = Client.JEDIS;
        int threads = 0;
        int warmupSeconds = -1;
        int seconds = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--redis" -> redisUri = URI.create(args[i + 1]);
                case "--workload" -> workload = Workload.named(args[i + 1]);
                case "--client" -> client = Client.named(args[i + 1]);
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmupSeconds = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (redisUri == null || workload == null || threads <= 0 || warmupSeconds < 0 || seconds <= 0) {
            throw new IllegalArgumentException("usage: WorkloadRun --redis URI --workload cold|storm"
                    + " [--client jedis|lettuce-sync|lettuce-async] --threads N --warmup S --seconds S");
        }
        RedisEndpoint redis = RedisEndpoint.external(redisUri);
        if (client == Client.JEDIS) {
            try (RedisClient jedis = redis.newPooledClient(threads)) {
                measure(new WorkloadRun(workload, threads, new SyncCommands() {
                    @Override
                    public void get(String key) {
                        jedis.get(key);
                    }

                    @Override
                    public void set(String key, String value) {
                        jedis.set(key, value);
                    }
                }, null), warmupSeconds, seconds);
            }
            return;
        }
        io.lettuce.core.RedisClient lettuce = redis.newLettuceClient();
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            SyncCommands sync = client == Client.LETTUCE_ASYNC ? null : new SyncCommands() {
                @Override
                public void get(String key) {
                    commands.get(key);
                }

                @Override
                public void set(String key, String value) {
                    commands.set(key, value);
                }
            };
            measure(new WorkloadRun(workload, threads, sync,
                    client == Client.LETTUCE_ASYNC ? connection.async() : null), warmupSeconds, seconds);
        } finally {
            RedisEndpoint.shutDown(lettuce);
        }
    }

    private static void measure(WorkloadRun run, int warmupSeconds, int seconds) throws Exception {
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

    /**
     * Runs the workload on all threads for {@code duration} and returns once every thread has stopped and,
     * for the async client, every command it sent has completed.
     */
    private RunResult drive(Duration duration) throws InterruptedException {
        List<Worker> workers = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        for (int i = 0; i < threads; i++) {
            Worker worker = async == null ? new SyncWorker(deadline) : new AsyncWorker(deadline);
            worker.setName("workload-" + (i + 1));
            worker.start();
            workers.add(worker);
        }
        long gets = 0;
        long sets = 0;
        long errors = 0;
        for (Worker worker : workers) {
            worker.join();
            gets += worker.gets.get();
            sets += worker.sets.get();
            errors += worker.errors.get();
        }
        return new RunResult(gets + sets, gets, sets, errors, (System.nanoTime() - start) / 1e9);
    }

    private abstract class Worker extends Thread {

        final long deadlineNanos;
        final SplittableRandom random = new SplittableRandom();
        final SkewedPicker keys = workload.keys();
        // Completed operations; the async client's completions arrive on Lettuce's I/O thread.
        final AtomicLong gets = new AtomicLong();
        final AtomicLong sets = new AtomicLong();
        final AtomicLong errors = new AtomicLong();

        Worker(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }
    }

    private final class SyncWorker extends Worker {

        SyncWorker(long deadlineNanos) {
            super(deadlineNanos);
        }

        @Override
        public void run() {
            while (System.nanoTime() < deadlineNanos) {
                String key = Workload.key(keys.next(random));
                try {
                    if (random.nextDouble() < workload.writeShare()) {
                        sync.set(key, Workload.VALUE);
                        sets.incrementAndGet();
                    } else {
                        sync.get(key);
                        gets.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                }
            }
        }
    }

    /** Keeps up to {@value #ASYNC_IN_FLIGHT} commands in flight and counts them as they complete. */
    private final class AsyncWorker extends Worker {

        private final Semaphore inFlight = new Semaphore(ASYNC_IN_FLIGHT);

        AsyncWorker(long deadlineNanos) {
            super(deadlineNanos);
        }

        @Override
        public void run() {
            try {
                while (System.nanoTime() < deadlineNanos) {
                    inFlight.acquire();
                    String key = Workload.key(keys.next(random));
                    boolean write = random.nextDouble() < workload.writeShare();
                    RedisFuture<String> reply;
                    try {
                        reply = write ? async.set(key, Workload.VALUE) : async.get(key);
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        inFlight.release();
                        continue;
                    }
                    reply.whenComplete((value, failure) -> {
                        if (failure != null) {
                            errors.incrementAndGet();
                        } else if (write) {
                            sets.incrementAndGet();
                        } else {
                            gets.incrementAndGet();
                        }
                        inFlight.release();
                    });
                }
                if (!inFlight.tryAcquire(ASYNC_IN_FLIGHT, DRAIN_SECONDS, TimeUnit.SECONDS)) {
                    errors.addAndGet(ASYNC_IN_FLIGHT - inFlight.availablePermits());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
