package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.LettucePipelineResults;
import io.hotkey.it.app.results.RunResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pipelines of SET and GET of hot keys on one shared Lettuce connection, several threads at once,
 * each thread on its own key so that what Redis answers each GET is known: the value of the SET
 * sent just before it by the same thread. Some SETs carry an expiry (then they are ordinary writes
 * to the agent) and some GETs are of the other threads' keys (their answer is only checked to be a
 * value that key had).
 *
 * <p>Usage: {@code --redis host:port [--rounds N] [--threads T]}.
 */
public final class LettucePipelineApp {
  private static final int DEPTH = 8;

  private LettucePipelineApp() {}

  public static void main(String[] args) throws Exception {
    AppArgs a = AppArgs.parse(args);
    int rounds = (int) a.number("rounds", 400);
    int threads = (int) a.number("threads", 4);
    RedisClient client = RedisClient.create(RedisURI.create(a.host(), a.port()));
    try (StatefulRedisConnection<String, String> conn = client.connect()) {
      RedisAsyncCommands<String, String> async = conn.async();
      List<String> keys = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        keys.add("lp:" + t);
        conn.sync().set("lp:" + t, "start");
      }
      Child.warmUp(
          LettucePipelineResults.WARMUP,
          keys,
          () -> keys.forEach(k -> conn.sync().get(k)),
          8000,
          3000);
      AtomicLong gets = new AtomicLong();
      AtomicLong mismatches = new AtomicLong();
      List<String> examples = Collections.synchronizedList(new ArrayList<>());
      sync("pipe");
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String key = keys.get(t);
        String neighbour = keys.get((t + 1) % threads);
        workers.add(
            new Thread(
                () -> {
                  try {
                    for (int r = 0; r < rounds; r++) {
                      List<String> expected = new ArrayList<>();
                      List<RedisFuture<String>> replies = new ArrayList<>();
                      List<RedisFuture<String>> sets = new ArrayList<>();
                      for (int j = 0; j < DEPTH; j++) {
                        String value = key + "/" + r + "/" + j;
                        if (j == 5 && r % 3 == 0) {
                          sets.add(async.set(key, value, SetArgs.Builder.ex(3600)));
                        } else {
                          sets.add(async.set(key, value));
                        }
                        replies.add(async.get(key));
                        expected.add(value);
                        if (j == 3) {
                          replies.add(async.get(neighbour));
                          expected.add(null);
                        }
                      }
                      for (RedisFuture<String> set : sets) {
                        if (!"OK".equals(set.get(10, TimeUnit.SECONDS))) {
                          throw new IllegalStateException("a pipelined SET was refused");
                        }
                      }
                      for (int i = 0; i < replies.size(); i++) {
                        String got = replies.get(i).get(10, TimeUnit.SECONDS);
                        gets.incrementAndGet();
                        String want = expected.get(i);
                        boolean ok =
                            want == null
                                ? got != null
                                    && (got.equals("start") || got.startsWith(neighbour + "/"))
                                : want.equals(got);
                        if (!ok) {
                          mismatches.incrementAndGet();
                          if (examples.size() < 5) {
                            examples.add(
                                "expected "
                                    + (want == null ? "a value of " + neighbour : want)
                                    + " got "
                                    + got);
                          }
                        }
                      }
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                "pipeline-" + t));
      }
      workers.forEach(Thread::start);
      for (Thread w : workers) {
        w.join();
      }
      sync("pipe-done");
      result(LettucePipelineResults.GETS, gets.get());
      result(LettucePipelineResults.MISMATCHES, mismatches.get());
      result(LettucePipelineResults.EXAMPLES, examples);
      Child.reportJmx(LettucePipelineResults.JMX);
    } finally {
      client.shutdown();
    }
    result(RunResults.DONE, true);
    System.exit(0);
  }
}
