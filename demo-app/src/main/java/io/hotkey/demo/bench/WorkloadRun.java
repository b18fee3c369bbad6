package io.hotkey.demo.bench;

import com.sun.management.OperatingSystemMXBean;
import io.hotkey.demo.load.SkewedPicker;
import io.hotkey.demo.redis.RedisEndpoint;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@link CompareRuns}: runs one workload against Redis with one {@link Client}, on
 * {@code --threads} worker threads that live as long as the JVM.
 *
 * <p>Protocol on stdin and stdout: it warms up for {@code --warmup} seconds, prints {@value
 * #WARMED_UP} and idles. Each line {@code GO S} (S seconds, decimal) from the parent then measures
 * one round of S seconds and prints one {@link RunResult} line for that round; a bare {@code GO}
 * measures {@code --seconds}. Between rounds the workers wait on a gate and send nothing (the async
 * client's commands have all completed), so the parent can read Redis' counters, or measure another
 * JVM, while this one is quiet. {@value #END} or the end of stdin ends the run.
 *
 * <p>{@code --redis redis://host:port --workload cold|storm|storm-reads --client
 * jedis|lettuce-sync|lettuce-async --threads N --warmup S [--seconds S]}
 */
public final class WorkloadRun {

  static final String WARMED_UP = "WARMED_UP";
  static final String GO = "GO";
  static final String END = "END";

  /** Commands each thread keeps in flight with {@link Client#LETTUCE_ASYNC}. */
  static final int ASYNC_IN_FLIGHT = 16;

  private static final long DRAIN_SECONDS = 30;
  private static final OperatingSystemMXBean PROCESS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** A synchronous key-value API: a Jedis client or Lettuce's sync commands. */
  private interface SyncCommands {
    void get(String key);

    void set(String key, String value);
  }

  private final Workload workload;
  private final int threads;
  private final SyncCommands sync;
  private final RedisAsyncCommands<String, String> async;

  /**
   * The main thread and every worker: a round starts when all have arrived, and ends when all have
   * again.
   */
  private final Phaser gate;

  private final List<Worker> workers = new ArrayList<>();
  private volatile long deadlineNanos;
  private volatile boolean closing;

  private WorkloadRun(
      Workload workload, int threads, SyncCommands sync, RedisAsyncCommands<String, String> async) {
    this.workload = workload;
    this.threads = threads;
    this.sync = sync;
    this.async = async;
    this.gate = new Phaser(threads + 1);
  }

  /** The line that makes the child measure one round of {@code round}. */
  static String go(Duration round) {
    return GO + " " + round.toNanos() / 1e9;
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
    if (redisUri == null || workload == null || threads <= 0 || warmupSeconds < 0 || seconds < 0) {
      throw new IllegalArgumentException(
          "usage: WorkloadRun --redis URI --workload cold|storm|storm-reads"
              + " [--client jedis|lettuce-sync|lettuce-async] --threads N --warmup S [--seconds S]");
    }
    RedisEndpoint redis = RedisEndpoint.external(redisUri);
    if (client == Client.JEDIS) {
      try (RedisClient jedis = redis.newPooledClient(threads)) {
        measure(
            new WorkloadRun(
                workload,
                threads,
                new SyncCommands() {
                  @Override
                  public void get(String key) {
                    jedis.get(key);
                  }

                  @Override
                  public void set(String key, String value) {
                    jedis.set(key, value);
                  }
                },
                null),
            warmupSeconds,
            seconds);
      }
      return;
    }
    io.lettuce.core.RedisClient lettuce = redis.newLettuceClient();
    try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
      RedisCommands<String, String> commands = connection.sync();
      SyncCommands sync =
          client == Client.LETTUCE_ASYNC
              ? null
              : new SyncCommands() {
                @Override
                public void get(String key) {
                  commands.get(key);
                }

                @Override
                public void set(String key, String value) {
                  commands.set(key, value);
                }
              };
      measure(
          new WorkloadRun(
              workload, threads, sync, client == Client.LETTUCE_ASYNC ? connection.async() : null),
          warmupSeconds,
          seconds);
    } finally {
      RedisEndpoint.shutDown(lettuce);
    }
  }

  private static void measure(WorkloadRun run, int warmupSeconds, int seconds) throws Exception {
    run.startWorkers();
    run.drive(Duration.ofSeconds(warmupSeconds));
    System.out.println(WARMED_UP);
    System.out.flush();
    BufferedReader parent =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = parent.readLine()) != null && !line.equals(END)) {
      System.out.println(run.drive(roundLength(line, seconds)).toLine());
      System.out.flush();
    }
    run.stopWorkers();
  }

  /** The round a {@code GO} line asks for: its seconds, else {@code defaultSeconds}. */
  private static Duration roundLength(String line, int defaultSeconds) {
    if (line.equals(GO) && defaultSeconds > 0) {
      return Duration.ofSeconds(defaultSeconds);
    }
    if (line.startsWith(GO + " ")) {
      double seconds = Double.parseDouble(line.substring(GO.length() + 1).trim());
      if (seconds > 0) {
        return Duration.ofNanos((long) (seconds * 1e9));
      }
    }
    throw new IllegalStateException(
        "parent said \""
            + line
            + "\", not "
            + GO
            + " S"
            + (defaultSeconds > 0 ? " or " + GO : "")
            + " or "
            + END);
  }

  private void startWorkers() {
    for (int i = 0; i < threads; i++) {
      Worker worker = async == null ? new SyncWorker() : new AsyncWorker();
      worker.setName("workload-" + (i + 1));
      worker.start();
      workers.add(worker);
    }
  }

  /**
   * Opens the gate for {@code duration} and returns once every worker has stopped at it again and,
   * for the async client, every command it sent has completed.
   */
  private RunResult drive(Duration duration) {
    long cpuStart = PROCESS.getProcessCpuTime();
    long start = System.nanoTime();
    deadlineNanos = start + duration.toNanos();
    gate.arriveAndAwaitAdvance();
    gate.arriveAndAwaitAdvance();
    long elapsedNanos = System.nanoTime() - start;
    long cpuNanos = PROCESS.getProcessCpuTime() - cpuStart;
    long gets = 0;
    long sets = 0;
    long errors = 0;
    for (Worker worker : workers) {
      gets += worker.gets.getAndSet(0);
      sets += worker.sets.getAndSet(0);
      errors += worker.errors.getAndSet(0);
    }
    return new RunResult(gets + sets, gets, sets, errors, elapsedNanos / 1e9, cpuNanos / 1e9);
  }

  private void stopWorkers() throws InterruptedException {
    closing = true;
    gate.arriveAndAwaitAdvance();
    for (Worker worker : workers) {
      worker.join();
    }
  }

  private abstract class Worker extends Thread {

    final SplittableRandom random = new SplittableRandom();
    final SkewedPicker keys = workload.keys();
    // Completed operations of the current round; the async client's arrive on Lettuce's I/O thread.
    final AtomicLong gets = new AtomicLong();
    final AtomicLong sets = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    /** Waits at the gate between rounds; runs each round until its deadline. */
    @Override
    public final void run() {
      try {
        while (true) {
          gate.arriveAndAwaitAdvance();
          if (closing) {
            return;
          }
          runUntil(deadlineNanos);
          gate.arriveAndAwaitAdvance();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Sends commands until {@code deadline} and returns once all of them have completed. */
    abstract void runUntil(long deadline) throws InterruptedException;
  }

  private final class SyncWorker extends Worker {

    @Override
    void runUntil(long deadline) {
      while (System.nanoTime() < deadline) {
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

    @Override
    void runUntil(long deadline) throws InterruptedException {
      while (System.nanoTime() < deadline) {
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
        reply.whenComplete(
            (value, failure) -> {
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
      if (inFlight.tryAcquire(ASYNC_IN_FLIGHT, DRAIN_SECONDS, TimeUnit.SECONDS)) {
        inFlight.release(ASYNC_IN_FLIGHT);
      } else {
        // Still pending after the drain: counted as failed; their permits come back if they
        // complete.
        errors.addAndGet(ASYNC_IN_FLIGHT - inFlight.availablePermits());
      }
    }
  }
}
