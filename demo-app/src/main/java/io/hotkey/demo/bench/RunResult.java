package io.hotkey.demo.bench;

import java.util.Map;

/**
 * What one measured round of a child did, as the line it prints for the parent: {@code RESULT ops=…
 * gets=… sets=… errors=… seconds=… cpu=…}, {@code cpu} being the CPU seconds the child's whole JVM
 * used meanwhile (every thread: workers, the client's I/O threads, the agent's, JIT, GC).
 */
public record RunResult(
    long ops, long gets, long sets, long errors, double seconds, double cpuSeconds) {

  static final String PREFIX = "RESULT ";

  public double opsPerSecond() {
    return ops / seconds;
  }

  /**
   * CPU microseconds per operation: steadier than throughput on a machine whose speed drifts, since
   * it does not count the time the JVM waited for a core.
   */
  public double cpuMicrosPerOp() {
    return ops == 0 ? 0 : 1e6 * cpuSeconds / ops;
  }

  /** This result and {@code other} together, as one run of both their operations and seconds. */
  public RunResult plus(RunResult other) {
    return new RunResult(
        ops + other.ops,
        gets + other.gets,
        sets + other.sets,
        errors + other.errors,
        seconds + other.seconds,
        cpuSeconds + other.cpuSeconds);
  }

  public String toLine() {
    return PREFIX
        + "ops="
        + ops
        + " gets="
        + gets
        + " sets="
        + sets
        + " errors="
        + errors
        + " seconds="
        + seconds
        + " cpu="
        + cpuSeconds;
  }

  public static boolean isResultLine(String line) {
    return line.startsWith(PREFIX);
  }

  public static RunResult parse(String line) {
    Map<String, String> fields = KeyValues.parse(line.substring(PREFIX.length()));
    try {
      return new RunResult(
          Long.parseLong(fields.get("ops")),
          Long.parseLong(fields.get("gets")),
          Long.parseLong(fields.get("sets")),
          Long.parseLong(fields.get("errors")),
          Double.parseDouble(fields.get("seconds")),
          Double.parseDouble(fields.get("cpu")));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed result line: " + line, e);
    }
  }
}
