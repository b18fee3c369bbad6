package io.hotkey.agent.instrument;

import net.bytebuddy.agent.builder.AgentBuilder;

/** One instrumented library and version line: which types it matches and the advice it applies. */
public interface ClientInstrumentation {
  /** Short name for the startup log, e.g. {@code jedis-4+}. */
  String name();

  AgentBuilder extend(AgentBuilder builder, AgentBuilder.Transformer.ForAdvice advice);

  /**
   * Changes that add members to a class, applied only to classes loaded after the agent (a loaded
   * class cannot gain a field); the instrumentation must work without them.
   */
  default AgentBuilder extendAtLoad(AgentBuilder builder) {
    return builder;
  }
}
