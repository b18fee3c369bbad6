package io.hotkey.it.app.results;

/**
 * The Jedis and Lettuce connection lifecycle apps: one outcome per case, {@code ok} or what was
 * read instead of what Redis answers, and for most cases whether its key was served locally before
 * (else the case proves nothing). The test reads every case the app reported.
 */
public final class LifecycleResults {
  public static final ResultFamily<String> OUTCOME =
      new ResultFamily<>("case.", "", ResultName::text);
  public static final ResultFamily<Boolean> SERVED_LOCALLY =
      new ResultFamily<>("case.", ".servedLocally", ResultName::flag);

  private LifecycleResults() {}

  /** The warm-up before {@code name} (a case, or a step of one). */
  public static WarmUpResults warmUp(String name) {
    return WarmUpResults.named(name);
  }
}
