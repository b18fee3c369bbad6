package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;

/** The Lettuce tracing app: a hot key read through every API with Lettuce's tracing on. */
public final class LettuceTracingResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("tracing");

  /** Reads between the SYNC points {@code tracing} and {@code tracing-done}. */
  public static final ResultName<Long> READS = number("tracing.reads");

  /** Those of {@link #READS} made through the reactive API, each under a context of its own. */
  public static final ResultName<Long> REACTIVE_READS = number("tracing.reactiveReads");

  public static final ResultName<Long> MISMATCHES = number("tracing.mismatches");

  /** Spans named GET. */
  public static final ResultName<Long> GET_SPANS = number("tracing.getSpans");

  /** Spans the agent tagged as answered locally. */
  public static final ResultName<Long> LOCAL_SPANS = number("tracing.localSpans");

  public static final ResultName<Long> UNFINISHED_SPANS = number("tracing.unfinished");

  /** Spans under the trace context of the reactive read that caused them. */
  public static final ResultName<Long> REACTIVE_WITH_OWN_PARENT =
      number("tracing.reactiveWithOwnParent");

  private LettuceTracingResults() {}
}
