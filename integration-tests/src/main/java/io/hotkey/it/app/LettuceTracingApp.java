package io.hotkey.it.app;

import static io.hotkey.it.app.Child.result;
import static io.hotkey.it.app.Child.sync;

import io.hotkey.it.app.results.LettuceTracingResults;
import io.hotkey.it.app.results.RunResults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.TraceContext;
import io.lettuce.core.tracing.TraceContextProvider;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.TracerProvider;
import io.lettuce.core.tracing.Tracing;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A Lettuce application with tracing on (a {@link Tracing} of its own that keeps every span, as a
 * Brave or Micrometer bridge would report it) reading one hot key through the sync, async and
 * reactive APIs. The reactive reads each carry a trace context of their own in the Reactor context,
 * as an instrumented web request would.
 *
 * <p>With {@code --tracing micrometer} the tracing is Lettuce's own {@code MicrometerTracing} on a
 * Micrometer {@code ObservationRegistry} that records every observation ({@link ObservedCommands}),
 * as Spring Boot's Lettuce observation configures it; the reactive reads then carry no trace
 * context of their own.
 *
 * <p>Usage: {@code --redis host:port [--n N] [--tracing recording|micrometer]}. Results: {@link
 * LettuceTracingResults}.
 */
public final class LettuceTracingApp {
  static final String KEY = "lt:traced";
  static final String VALUE = "traced-value";
  static final String LOCAL_TAG = "hotkey.answer";

  private LettuceTracingApp() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Child.parseArgs(args);
    int n = Integer.parseInt(a.getOrDefault("n", "300"));
    String[] hp = a.get("redis").split(":");
    boolean micrometer = "micrometer".equals(a.getOrDefault("tracing", "recording"));
    ConcurrentLinkedQueue<RecordedSpan> recorded = new ConcurrentLinkedQueue<>();
    Tracing tracing =
        micrometer ? ObservedCommands.tracing(recorded) : new RecordingTracing(recorded);
    ClientResources resources = ClientResources.builder().tracing(tracing).build();
    RedisClient client =
        RedisClient.create(resources, RedisURI.create(hp[0], Integer.parseInt(hp[1])));
    long mismatches = 0;
    long reactiveWithOwnParent = 0;
    try (StatefulRedisConnection<String, String> conn = client.connect()) {
      conn.sync().set(KEY, VALUE);
      Child.warmUp(
          LettuceTracingResults.WARMUP, List.of(KEY), () -> conn.sync().get(KEY), 8000, 3000);
      sync("tracing");
      recorded.clear();
      for (int i = 0; i < n; i++) {
        mismatches += VALUE.equals(conn.sync().get(KEY)) ? 0 : 1;
        mismatches += VALUE.equals(conn.async().get(KEY).get(5, TimeUnit.SECONDS)) ? 0 : 1;
        RecordingContext parent = new RecordingContext();
        String reactive =
            micrometer
                ? conn.reactive().get(KEY).block()
                : conn.reactive()
                    .get(KEY)
                    .contextWrite(Tracing.withTraceContextProvider(() -> parent))
                    .block();
        mismatches += VALUE.equals(reactive) ? 0 : 1;
        reactiveWithOwnParent += recorded.stream().filter(s -> s.parent == parent).count();
      }
      sync("tracing-done");
    } finally {
      client.shutdown();
      resources.shutdown().get(10, TimeUnit.SECONDS);
    }
    List<RecordedSpan> spans = List.copyOf(recorded);
    result(LettuceTracingResults.READS, 3L * n);
    result(LettuceTracingResults.REACTIVE_READS, (long) n);
    result(LettuceTracingResults.MISMATCHES, mismatches);
    result(
        LettuceTracingResults.GET_SPANS, spans.stream().filter(s -> "GET".equals(s.name)).count());
    result(
        LettuceTracingResults.LOCAL_SPANS,
        spans.stream().filter(s -> "local".equals(s.tags.get(LOCAL_TAG))).count());
    result(LettuceTracingResults.UNFINISHED_SPANS, spans.stream().filter(s -> !s.finished).count());
    result(LettuceTracingResults.REACTIVE_WITH_OWN_PARENT, reactiveWithOwnParent);
    result(RunResults.DONE, true);
    System.exit(0);
  }

  static final class RecordingContext implements TraceContext {}

  static final class RecordedSpan extends Tracer.Span {
    final TraceContext parent;
    final Map<String, String> tags = new ConcurrentHashMap<>();
    volatile String name;
    volatile boolean finished;

    RecordedSpan(TraceContext parent) {
      this.parent = parent;
    }

    @Override
    public Tracer.Span start(RedisCommand<?, ?, ?> command) {
      // as Lettuce's Brave bridge does: the span ends when the command completes
      ((CompleteableCommand<?>) command).onComplete((result, error) -> finish());
      return this;
    }

    @Override
    public Tracer.Span name(String name) {
      this.name = name;
      return this;
    }

    @Override
    public Tracer.Span annotate(String value) {
      return this;
    }

    @Override
    public Tracer.Span tag(String key, String value) {
      tags.put(key, value);
      return this;
    }

    @Override
    public Tracer.Span error(Throwable throwable) {
      return this;
    }

    @Override
    public Tracer.Span remoteEndpoint(Tracing.Endpoint endpoint) {
      return this;
    }

    @Override
    public void finish() {
      finished = true;
    }
  }

  static final class RecordingTracing implements Tracing, TracerProvider {
    private final ConcurrentLinkedQueue<RecordedSpan> spans;
    private final TraceContext root = new RecordingContext();
    private final Tracer tracer =
        new Tracer() {
          @Override
          public Span nextSpan() {
            return nextSpan(root);
          }

          @Override
          public Span nextSpan(TraceContext parent) {
            RecordedSpan span = new RecordedSpan(parent);
            spans.add(span);
            return span;
          }
        };

    RecordingTracing(ConcurrentLinkedQueue<RecordedSpan> spans) {
      this.spans = spans;
    }

    @Override
    public Tracer getTracer() {
      return tracer;
    }

    @Override
    public TracerProvider getTracerProvider() {
      return this;
    }

    @Override
    public TraceContextProvider initialTraceContextProvider() {
      return () -> root;
    }

    @Override
    public boolean isEnabled() {
      return true;
    }

    @Override
    public boolean includeCommandArgsInSpanTags() {
      return false;
    }

    @Override
    public Endpoint createEndpoint(SocketAddress socketAddress) {
      return new Endpoint() {};
    }
  }
}
