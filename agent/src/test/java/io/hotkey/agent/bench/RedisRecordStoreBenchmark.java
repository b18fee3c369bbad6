package io.hotkey.agent.bench;

import io.hotkey.agent.idempotency.HttpAnswer;
import io.hotkey.agent.idempotency.redis.RedisRecordStore;
import io.hotkey.agent.idempotency.store.ClaimResult;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.hotkey.agent.redis.resp.RespClient;
import io.hotkey.agent.testing.RedisBuild;
import io.hotkey.agent.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the redis idempotency store costs one fresh request against a real {@code redis-server} on
 * loopback (without persistence, as a cache-like Redis runs), next to what it cannot avoid: {@code
 * claimAndComplete} claims a new key and stores an answer (two script calls); {@code twoPings}
 * makes two round trips on the same kind of pooled connection. The difference is the store's own
 * cost: its scripts' time in Redis and its encoding. Run it with {@link BenchMain}, e.g. {@code
 * -Dexec.args="RedisRecordStoreBenchmark -f 1"}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisRecordStoreBenchmark {
  static final HttpAnswer ANSWER =
      new HttpAnswer(201, IdempotencyEngineBenchmark.HEADERS, IdempotencyEngineBenchmark.ANSWER);
  static final byte[] FINGERPRINT = new byte[32];
  static final byte[] PING = "PING".getBytes(StandardCharsets.US_ASCII);

  /** A Redis server of its own, the store and a client on it. */
  @State(Scope.Benchmark)
  public static class Server {
    RedisProcess redis;
    RedisRecordStore store;
    RespClient client;
    long next;

    @Setup(Level.Trial)
    public void start() throws Exception {
      redis = RedisProcess.start(RedisBuild.EMBEDDED_6_2, "--appendonly", "no");
      RedisEndpoint endpoint = RedisEndpoint.of("127.0.0.1", redis.port());
      store = new RedisRecordStore(endpoint);
      client = new RespClient(endpoint, 2_000, 2_000, 16, 50);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      client.close();
      store.close();
      redis.close();
    }
  }

  @Benchmark
  public boolean claimAndComplete(Server server) throws Exception {
    String key = "bench:" + server.next++;
    ClaimResult claim = server.store.claim(key, FINGERPRINT, Duration.ofSeconds(30));
    return server.store.complete(key, claim.token(), ANSWER, Duration.ofMinutes(10));
  }

  @Benchmark
  public Object twoPings(Server server) throws Exception {
    server.client.call(PING);
    return server.client.call(PING);
  }
}
