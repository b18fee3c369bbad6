package io.hotkey.it.app;

import io.lettuce.core.tracing.LettuceObservationContext;
import io.lettuce.core.tracing.MicrometerTracing;
import io.lettuce.core.tracing.Tracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Lettuce's {@link MicrometerTracing} on an {@link ObservationRegistry} whose one handler records
 * every command observation as a {@link LettuceTracingApp.RecordedSpan}: named by its command, with
 * its high-cardinality tags, finished when the observation stops. A registry with a handler makes
 * Micrometer run Lettuce's observation convention, as it does under Spring Boot's actuator. Its own
 * class, so that the tracing app loads Micrometer only when asked to.
 */
final class ObservedCommands implements ObservationHandler<LettuceObservationContext> {
  private final ConcurrentLinkedQueue<LettuceTracingApp.RecordedSpan> spans;

  private ObservedCommands(ConcurrentLinkedQueue<LettuceTracingApp.RecordedSpan> spans) {
    this.spans = spans;
  }

  static Tracing tracing(ConcurrentLinkedQueue<LettuceTracingApp.RecordedSpan> spans) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservedCommands(spans));
    return new MicrometerTracing(registry, "lettuce-tracing-app");
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof LettuceObservationContext;
  }

  @Override
  public void onStart(LettuceObservationContext context) {
    LettuceTracingApp.RecordedSpan span = new LettuceTracingApp.RecordedSpan(null);
    span.name(context.getRequiredCommand().getType().toString());
    context.getHighCardinalityKeyValues().forEach(kv -> span.tag(kv.getKey(), kv.getValue()));
    context.put(LettuceTracingApp.RecordedSpan.class, span);
    spans.add(span);
  }

  @Override
  public void onStop(LettuceObservationContext context) {
    LettuceTracingApp.RecordedSpan span = context.get(LettuceTracingApp.RecordedSpan.class);
    if (span != null) {
      span.finish();
    }
  }
}
