package io.hotkey.agent.bench;

import io.hotkey.agent.idempotency.Decision;
import io.hotkey.agent.idempotency.IdempotencyEngine;
import io.hotkey.agent.idempotency.IdempotencyEngines;
import io.hotkey.agent.idempotency.IdempotencySettings;
import io.hotkey.agent.idempotency.RequestHead;
import io.hotkey.agent.idempotency.Route;
import io.hotkey.agent.idempotency.store.MemoryRecordStore;
import io.hotkey.config.RouteTable;
import io.hotkey.config.StoreFailurePolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * What the idempotency engine and the memory store cost one request, without any server: route,
 * decide (key, caller scope, fingerprint, claim) and, for a fresh key, the handler's answer stored
 * ({@code freshKey}); or a retry answered from the record ({@code replay}). Settings as the
 * IdempotencyBench service's: {@code POST /orders}, the default scope headers and cookies, a
 * ~30-byte JSON body and an ~80-byte answer with three headers. Run it with {@link BenchMain}, e.g.
 * {@code -Dexec.args="IdempotencyEngineBenchmark -f 1 -wi 5 -i 5 -prof gc"}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IdempotencyEngineBenchmark {
  static final byte[] BODY = "{\"productId\":7,\"quantity\":1}".getBytes(StandardCharsets.UTF_8);
  static final byte[] ANSWER =
      "{\"order\":123456,\"productId\":7,\"quantity\":1,\"status\":\"created\",\"total\":1999}"
          .getBytes(StandardCharsets.UTF_8);
  static final List<Map.Entry<String, String>> HEADERS =
      List.of(
          Map.entry("Content-Type", "application/json"),
          Map.entry("Location", "/orders/123456"),
          Map.entry("Date", "Thu, 03 Dec 2026 12:00:00 GMT"));

  /** The engine as the agent builds it for {@code POST /orders} on the memory store. */
  @State(Scope.Benchmark)
  public static class Engine {
    IdempotencyEngine engine;
    long next;
    final Request retried = new Request("retried-key");

    @Setup(Level.Trial)
    public void start() throws Exception {
      engine =
          new IdempotencyEngine(
              new IdempotencySettings(
                      RouteTable.parse("POST /orders"),
                      "Idempotency-Key",
                      List.of("Authorization"),
                      false,
                      Duration.ofMinutes(10),
                      Duration.ofSeconds(30),
                      1 << 20,
                      StoreFailurePolicy.REJECT)
                  .withScopeCookies(List.of("JSESSIONID", "SESSION")),
              new MemoryRecordStore(IdempotencyEngines.MEMORY_STORE_BYTES));
      Decision first = decide(engine, retried);
      first.execution().finish(201, HEADERS, ANSWER, true);
    }

    @TearDown(Level.Trial)
    public void stop() {
      engine.close();
    }
  }

  @Benchmark
  public Object freshKey(Engine state) throws Exception {
    Decision decision = decide(state.engine, new Request("key-" + state.next++));
    decision.execution().finish(201, HEADERS, ANSWER, true);
    return decision;
  }

  @Benchmark
  public Object replay(Engine state) throws Exception {
    return decide(state.engine, state.retried);
  }

  static Decision decide(IdempotencyEngine engine, Request request) throws Exception {
    Route route = engine.route(request.method(), request.path());
    return engine.decide(route, request, limit -> BODY);
  }

  /** A request head as the JDK server adapter gives it. */
  static final class Request implements RequestHead {
    private final List<String> key;

    Request(String key) {
      this.key = List.of(key);
    }

    @Override
    public String method() {
      return "POST";
    }

    @Override
    public String path() {
      return "/orders";
    }

    @Override
    public String rawPath() {
      return "/orders";
    }

    @Override
    public String rawQuery() {
      return null;
    }

    @Override
    public List<String> headerValues(String name) {
      return name.equals("Idempotency-Key") ? key : List.of();
    }
  }
}
