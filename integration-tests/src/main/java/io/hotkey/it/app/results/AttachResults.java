package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.flag;
import static io.hotkey.it.app.results.ResultName.number;

/**
 * A JVM started without the agent that the test attaches it to (Jedis {@code attach}; Lettuce
 * {@code attach-ryw} reports {@link #AGENT_BEFORE} and then {@link ReadYourWritesResults}).
 */
public final class AttachResults {
  /** Whether the agent's MBean was there before the attach (it must not be). */
  public static final ResultName<Boolean> AGENT_BEFORE = flag("attach.agentBefore");

  public static final ResultName<Long> READS = number("attach.reads");

  /** Reads unlike the value written. */
  public static final ResultName<Long> WRONG = number("attach.wrong");

  public static final JmxResults JMX = JmxResults.at("attach");

  private AttachResults() {}
}
