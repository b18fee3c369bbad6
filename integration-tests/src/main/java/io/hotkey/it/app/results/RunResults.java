package io.hotkey.it.app.results;

/** What every scenario app reports about its run as a whole. */
public final class RunResults {
  /** The scenario ran to its end (absent when it failed or was killed). */
  public static final ResultName<Boolean> DONE = ResultName.flag("done");

  /** The throwable that ended the scenario. */
  public static final ResultName<String> FAILURE = ResultName.text("failure");

  /** The {@code --scenario} an app with several ran. */
  public static final ResultName<String> SCENARIO = ResultName.text("scenario");

  /** {@code java.version} of the JVM the app ran on. */
  public static final ResultName<String> JAVA_VERSION = ResultName.text("java.version");

  /** The agent's figures once the scenario is over. */
  public static final JmxResults END_JMX = JmxResults.at("end");

  private RunResults() {}
}
