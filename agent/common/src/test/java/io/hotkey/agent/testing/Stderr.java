package io.hotkey.agent.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The agent's log lines (its stderr) while an action runs. */
public final class Stderr {
  /** What runs while stderr is captured. */
  public interface Action {
    void run() throws Exception;
  }

  private Stderr() {}

  public static List<String> of(Action action) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8).lines().toList();
  }
}
