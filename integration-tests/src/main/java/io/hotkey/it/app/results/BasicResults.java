package io.hotkey.it.app.results;

import static io.hotkey.it.app.results.ResultName.number;
import static io.hotkey.it.app.results.ResultName.texts;

import java.util.List;

/**
 * The Jedis {@code basic} scenario: a bit of everything in a loop (reads of every type, a pipeline,
 * a transaction, writes), each answer checked against the value written.
 */
public final class BasicResults {
  public static final ResultName<Long> LOOPS = number("basic.loops");

  /** GETs the app sent, in and out of pipelines and transactions. */
  public static final ResultName<Long> GETS = number("basic.gets");

  /** Answers unlike the value written. */
  public static final ResultName<Long> ERRORS = number("basic.errors");

  /** The first few of {@link #ERRORS}: what was read where. */
  public static final ResultName<List<String>> ERROR_SAMPLES = texts("basic.errorSamples");

  public static final JmxResults JMX = JmxResults.at("basic");

  private BasicResults() {}
}
