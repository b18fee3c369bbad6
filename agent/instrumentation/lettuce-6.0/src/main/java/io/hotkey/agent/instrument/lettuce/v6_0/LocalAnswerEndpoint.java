package io.hotkey.agent.instrument.lettuce.v6_0;

import io.lettuce.core.tracing.Tracing;

/**
 * The endpoint of a span whose read the agent answered: no server's address. Lettuce's Micrometer
 * observation convention then tags the span with the database system and command only. A helper
 * class defined next to Lettuce 6 (Lettuce 5.0 has no {@code Tracing.Endpoint}); {@link
 * LocalAnswerSpan} reads {@link #INSTANCE}, typed as Lettuce's interface, so that it links on
 * Lettuce 5 too, where it never gets here.
 */
public final class LocalAnswerEndpoint implements Tracing.Endpoint {
  public static final Tracing.Endpoint INSTANCE = new LocalAnswerEndpoint();

  private LocalAnswerEndpoint() {}

  @Override
  public String toString() {
    return "hotkey-agent (answered locally)";
  }
}
