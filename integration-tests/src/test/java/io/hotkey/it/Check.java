package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertAll;

import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.MultipleFailuresError;

/** assertAll that appends the child's diagnostics (command, [hotkey] lines, stream tails) once. */
final class Check {
  private Check() {}

  static void all(ChildRun c, String heading, Stream<Executable> checks) {
    try {
      assertAll(heading, checks);
    } catch (MultipleFailuresError e) {
      AssertionError a = new AssertionError(e.getMessage() + "\n" + c.describe());
      e.getFailures().forEach(a::addSuppressed);
      throw a;
    }
  }

  static void all(ChildRun c, String heading, Executable... checks) {
    all(c, heading, Arrays.stream(checks));
  }
}
