package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.tracing.TraceContextProvider;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.Tracing;

/**
 * The client span Lettuce's own tracing would have given a command that the agent answers in
 * dispatch, so a trace still shows the read: same name, same parent, finished when the command
 * completes, tagged {@value #TAG}={@value #LOCAL} and without a server's address, as no server was
 * asked (Lettuce's Micrometer tracing, which requires an endpoint, gets {@link
 * LocalAnswerEndpoint}, which has none). A helper class, defined next to Lettuce like {@link
 * LettuceArguments}.
 */
public final class LocalAnswerSpan {
  /** The tag that tells a span of a locally answered command from one that went to Redis. */
  public static final String TAG = "hotkey.answer";

  public static final String LOCAL = "local";

  private static final String MICROMETER_TRACING = "io.lettuce.core.tracing.MicrometerTracing";

  /**
   * Lettuce 6's tracing API ({@code Span.start(RedisCommand)}); Lettuce 5's differs (5.0 has none),
   * and a read answered locally there gets no span.
   */
  private static final boolean LETTUCE_6_TRACING = hasLettuce6Tracing();

  private LocalAnswerSpan() {}

  private static boolean hasLettuce6Tracing() {
    try {
      Class.forName(
              "io.lettuce.core.tracing.Tracer$Span", false, LocalAnswerSpan.class.getClassLoader())
          .getMethod("start", RedisCommand.class);
      return true;
    } catch (ReflectiveOperationException | LinkageError lettuce5) {
      return false;
    }
  }

  /** Starts the span when the connection's client resources have tracing enabled. */
  public static void start(Object connection, RedisCommand<?, ?, ?> command) {
    if (!LETTUCE_6_TRACING
        || !(connection instanceof RedisChannelHandler)
        || !(command instanceof CompleteableCommand)) {
      return;
    }
    Tracing tracing = ((RedisChannelHandler<?, ?>) connection).getResources().tracing();
    if (!tracing.isEnabled()) {
      return;
    }
    // the reactive API wraps the command with the subscriber's trace context; the others take the
    // initial one, as Lettuce's CommandHandler does for commands it writes
    TraceContextProvider provider = CommandWrapper.unwrap(command, TraceContextProvider.class);
    if (provider == null) {
      provider = tracing.initialTraceContextProvider();
    }
    if (provider == null) {
      return;
    }
    Tracer.Span span = tracing.getTracerProvider().getTracer().nextSpan(provider.getTraceContext());
    span.name(command.getType().toString());
    span.tag(TAG, LOCAL);
    if (tracing.getClass().getName().equals(MICROMETER_TRACING)) {
      // its observation convention refuses to start a span without an endpoint (Brave's, which
      // casts the endpoint to its own type, gets none)
      span.remoteEndpoint(LocalAnswerEndpoint.INSTANCE);
    }
    span.start(command);
  }
}
