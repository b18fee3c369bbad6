package io.hotkey.it;

import io.hotkey.it.app.results.ResultFamily;
import io.hotkey.it.app.results.ResultName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** What a child JVM did: exit code, output, its RESULT lines and the SYNC points it passed. */
public final class ChildRun {
  private final String label;
  private final String command;
  private final int exitCode;
  private final boolean timedOut;
  private final Duration took;
  private final List<String> stdout;
  private final List<String> stderr;
  private final List<String> syncs;
  private final Path stdoutFile;
  private final Path stderrFile;
  private final Throwable handlerFailure;

  private final ResultLines results;

  ChildRun(
      String label,
      String command,
      int exitCode,
      boolean timedOut,
      Duration took,
      List<String> stdout,
      List<String> stderr,
      List<String> syncs,
      Path stdoutFile,
      Path stderrFile,
      Throwable handlerFailure) {
    this.label = label;
    this.command = command;
    this.exitCode = exitCode;
    this.timedOut = timedOut;
    this.took = took;
    this.stdout = stdout;
    this.stderr = stderr;
    this.syncs = syncs;
    this.stdoutFile = stdoutFile;
    this.stderrFile = stderrFile;
    this.handlerFailure = handlerFailure;
    this.results = new ResultLines(stdout, this::summary);
  }

  public int exitCode() {
    return exitCode;
  }

  public boolean timedOut() {
    return timedOut;
  }

  public Throwable handlerFailure() {
    return handlerFailure;
  }

  public List<String> stdout() {
    return stdout;
  }

  public List<String> stderr() {
    return stderr;
  }

  public List<String> syncs() {
    return syncs;
  }

  /**
   * The value the child reported as {@code name}; {@code null} only for a {@link
   * ResultName#nullable() nullable} one reported without a value.
   *
   * @throws AssertionError naming the result and the child's logs, when the child did not report
   *     it, reported it without a value it must have, or reported a value of another type
   */
  public <T> T result(ResultName<T> name) {
    return results.get(name);
  }

  /** Every result of {@code family} the child reported, by member (sorted). */
  public <T> Map<String, T> results(ResultFamily<T> family) {
    return results.get(family);
  }

  /**
   * The agent's stderr lines, from {@code "[hotkey] "} on. The contract says lines are prefixed
   * {@code "[hotkey] "}; a leading timestamp (digits, ':', '.', '-', 'T', spaces) is tolerated here
   * so that the functional tests judge behaviour, and {@link #misprefixedHotkeyLines()} reports the
   * deviation separately.
   */
  public List<String> hotkeyLines() {
    return stderr.stream()
        .map(ChildRun::hotkeyPart)
        .filter(l -> l != null)
        .collect(Collectors.toList());
  }

  /**
   * Stderr lines that carry "[hotkey] " but do not start with it (contract: one line each,
   * prefixed).
   */
  public List<String> misprefixedHotkeyLines() {
    return stderr.stream()
        .filter(l -> l.contains("[hotkey] ") && !l.startsWith("[hotkey] "))
        .collect(Collectors.toList());
  }

  static String hotkeyPart(String line) {
    int i = line.indexOf("[hotkey] ");
    if (i < 0 || !line.substring(0, i).matches("[0-9:.\\-T ]*")) {
      return null;
    }
    return line.substring(i);
  }

  /**
   * Index in stderr of the first agent line matching {@code regex} (after the prefix is
   * normalised), or -1.
   */
  public int stderrIndexOf(String regex) {
    Pattern p = Pattern.compile(regex);
    for (int i = 0; i < stderr.size(); i++) {
      String h = hotkeyPart(stderr.get(i));
      if (h != null && p.matcher(h).find()) {
        return i;
      }
    }
    return -1;
  }

  /** Whether an agent line (normalised to start at "[hotkey] ") matches {@code regex}. */
  public boolean stderrMatches(String regex) {
    Pattern p = Pattern.compile(regex);
    return hotkeyLines().stream().anyMatch(l -> p.matcher(l).find());
  }

  public boolean stderrContains(String text) {
    return stderr.stream().anyMatch(l -> l.contains(text));
  }

  /**
   * The promotion line for {@code key} (contract: [hotkey] hot key promoted: key="k" rate=N/s
   * reads=N%).
   */
  public boolean promoted(String key) {
    return stderrMatches(
        "^\\[hotkey\\] hot key promoted: key=\""
            + Pattern.quote(key)
            + "\" rate=\\d+/s reads=\\d+%");
  }

  public boolean agentActiveLine() {
    return stderrMatches(
        "^\\[hotkey\\] active: version=\\S+ clients=\\S* threshold=\\d+/s window=\\S+ sampling=1/\\d+ cache=(on|off)");
  }

  public String summary() {
    return label
        + ": exit="
        + exitCode
        + (timedOut ? " TIMED OUT" : "")
        + " in "
        + took.toMillis()
        + "ms, "
        + results.size()
        + " results, syncs="
        + syncs.size()
        + ", logs "
        + stderrFile;
  }

  private static String tail(List<String> lines, int n) {
    int from = Math.max(0, lines.size() - n);
    return (from > 0 ? "  ... (" + from + " lines before)\n" : "")
        + lines.subList(from, lines.size()).stream()
            .map(l -> "  | " + l)
            .collect(Collectors.joining("\n"));
  }

  /**
   * For assertion messages: what ran, how it ended, the [hotkey] lines and the tails of both
   * streams.
   */
  public String describe() {
    List<String> hk = hotkeyLines();
    return "\n--- child "
        + summary()
        + "\n--- command: "
        + command
        + (handlerFailure != null ? "\n--- test-side sync handler failed: " + handlerFailure : "")
        + "\n--- [hotkey] lines ("
        + hk.size()
        + "):\n"
        + tail(hk, 25)
        + "\n--- stderr tail:\n"
        + tail(stderr, 40)
        + "\n--- stdout tail:\n"
        + tail(stdout, 25)
        + "\n--- (full output: "
        + stdoutFile
        + " , "
        + stderrFile
        + ")\n";
  }
}
