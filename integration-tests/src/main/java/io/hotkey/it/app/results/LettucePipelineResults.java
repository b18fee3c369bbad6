package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/** The Lettuce pipeline app: pipelined SETs and GETs of hot keys on one shared connection. */
public final class LettucePipelineResults {
  public static final WarmUpResults WARMUP = WarmUpResults.named("pipe");

  /** GETs whose answer was checked. */
  public static final ResultName<Long> GETS = number("pipe.gets");

  /** GETs that did not read the value of the SET their thread sent just before. */
  public static final ResultName<Long> MISMATCHES = number("pipe.mismatches");

  public static final ResultName<List<String>> EXAMPLES = texts("pipe.examples");
  public static final JmxResults JMX = JmxResults.at("pipe");

  private LettucePipelineResults() {}
}
