package io.hotkey.it.app.results;

/**
 * What {@code Child.warmUp} reports about one warm-up, under {@code <name>.warmup.*}.
 *
 * @param rounds rounds of reads it ran
 * @param millis how long it took
 * @param hotViaJmx whether the agent's MBean listed every key as hot before it ended
 */
public record WarmUpResults(
    ResultName<Long> rounds, ResultName<Long> millis, ResultName<Boolean> hotViaJmx) {

  /** The results of the warm-up called {@code name} (a scenario, or a case of one). */
  public static WarmUpResults named(String name) {
    return new WarmUpResults(
        ResultName.number(name + ".warmup.rounds"),
        ResultName.number(name + ".warmup.millis"),
        ResultName.flag(name + ".warmup.hotViaJmx"));
  }
}
