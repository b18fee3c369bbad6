package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar hotkey-agent.jar status <pid> [--json]} and {@code top <pid>} against a real JVM
 * under load, with no HTTP endpoint: attach and JMX only. {@code top} runs in a pseudo-terminal (a
 * tmux pane) and is ended by Ctrl-C typed into it. Mostly waits for {@code top}'s refreshes, beside
 * the other classes.
 */
@SideLane
class StatusCommandIT extends RedisTestBase {

  @Test
  void statusShowsAKeyPromotedByLoadWithItsRateAndTheConfiguration() throws Exception {
    try (LiveService app = underLoad("status")) {
      Command status = statusWithHits(app);
      assertEquals(0, status.exit, status::toString);
      Matcher row = hotRow("(?m)^").matcher(status.out);
      assertTrue(row.find(), status::toString);
      long hits = count(row.group(2));
      long misses = count(row.group(3));
      assertTrue(hits > 0 && misses >= 1, status::toString);
      long shownPercent = Long.parseLong(row.group(1));
      assertTrue(Math.abs(100.0 * hits / (hits + misses) - shownPercent) <= 1, status::toString);
      assertTrue(status.out.contains("in JVM " + app.jvm().pid()), status::toString);
      assertTrue(
          status.out.contains("hotkey.detect.threshold = 200  (system property)"),
          status::toString);
      assertTrue(status.out.matches("(?s).*redis +[0-9,]+/s commands saved.*"), status::toString);

      Command json = agentCommand("status", String.valueOf(app.jvm().pid()), "--json");
      assertEquals(0, json.exit, json::toString);
      JsonObject report = JsonParser.parseString(json.out).getAsJsonObject();
      JsonObject first = report.getAsJsonArray("hotKeys").get(0).getAsJsonObject();
      assertEquals(HOT, first.get("key").getAsString(), json::toString);
      assertTrue(first.get("rate").getAsDouble() > 300, json::toString);
      long jsonHits = first.get("hits").getAsLong();
      long jsonMisses = first.get("misses").getAsLong();
      assertTrue(jsonHits >= hits && jsonMisses >= misses, json::toString);
      // the report writes ratios to three decimals
      assertEquals(
          (double) jsonHits / (jsonHits + jsonMisses),
          first.get("hitRatio").getAsDouble(),
          0.0005 + 1e-9);
      assertEquals(app.jvm().pid(), report.getAsJsonObject("agent").get("pid").getAsLong());
    }
  }

  @Test
  void topRefreshesInATerminalAndCtrlCEndsIt() throws Exception {
    try (LiveService app = underLoad("top")) {
      // tmux gives top a terminal of its own, with the signal dispositions a person's shell has
      // (a build run in the background would otherwise pass SIGINT on ignored)
      Tmux tmux = new Tmux("hotkey-it-top-" + ProcessHandle.current().pid());
      try {
        tmux.run(
            "new-session",
            "-d",
            "-x",
            "160",
            "-y",
            "50",
            Jdk.JDK17.java() + " -jar " + ItConfig.agentJar() + " top " + app.jvm().pid());
        Pattern hotRow = hotRow("\\n");
        String first = tmux.screenWhen(s -> hotRow.matcher(s).find(), Duration.ofSeconds(40));
        assertTrue(hotRow.matcher(first).find(), () -> "the hot key is not on screen:\n" + first);
        assertTrue(first.contains("refreshed every second; Ctrl-C quits"), first);
        String uptime = first.replaceAll("(?s).*?(up [0-9hms ]+),.*", "$1");
        String later = tmux.screenWhen(s -> !s.contains(uptime + ","), Duration.ofSeconds(10));
        assertFalse(later.contains(uptime + ","), () -> "not redrawn:\n" + later);
        tmux.run("send-keys", "-t", "0", "C-c");
        assertTrue(tmux.awaitGone(Duration.ofSeconds(20)), "Ctrl-C did not end top");
      } finally {
        tmux.kill();
      }
    }
  }

  @Test
  void statusFindsTheAgentOfAJvmWithoutAnMBeanServer() throws Exception {
    // nothing in this JVM makes an MBean server (one Lettuce connection, no pool) and the agent
    // does not either: status's local management agent makes it, and the agent registers its
    // MXBean within a second of that
    try (LiveService app =
        LiveService.startWithoutEndpoint(LiveService.lettuceApp(redis).name("status-lettuce"))) {
      assertTrue(
          app.jvm().awaitAgentLine("active: version=", Duration.ofSeconds(30)),
          () -> "the agent did not start:\n" + app.jvm().output());
      Command status = agentCommand("status", String.valueOf(app.jvm().pid()));
      assertEquals(0, status.exit, status::toString);
      assertTrue(status.out.contains("in JVM " + app.jvm().pid()), status::toString);
    }
  }

  @Test
  void aJvmWithoutTheAgentGetsOneClearLine() throws Exception {
    try (LiveService app =
        LiveService.startWithoutEndpoint(
            LiveService.app(redis).withoutAgent().name("status-no-agent"))) {
      Command status = agentCommand("status", String.valueOf(app.jvm().pid()));
      assertEquals(1, status.exit, status::toString);
      assertEquals("", status.out, status::toString);
      List<String> lines = status.err.lines().toList();
      assertEquals(1, lines.size(), status::toString);
      assertEquals(
          "JVM "
              + app.jvm().pid()
              + " runs no active Hotkey Agent (start it with -javaagent:hotkey-agent.jar, or: java -jar hotkey-agent.jar attach "
              + app.jvm().pid()
              + ")",
          lines.get(0));
    }
  }

  /**
   * The hot key's row as {@code status} and {@code top} print it: rate, read share, then its hit
   * ratio (group 1), hits (2) and misses (3), then its scope.
   */
  private static Pattern hotRow(String start) {
    return Pattern.compile(
        start + Pattern.quote(HOT) + " +[0-9,]+ +100% +([0-9]+)% +([0-9,]+) +([0-9,]+) local ");
  }

  /**
   * {@code status} of the app once it shows the hot key with hits, or after 20 s: the first reads
   * after the promotion go to Redis until the key is filled and tracked.
   */
  private static Command statusWithHits(LiveService app) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      Command status = agentCommand("status", String.valueOf(app.jvm().pid()));
      Matcher row = hotRow("(?m)^").matcher(status.out);
      if ((row.find() && count(row.group(2)) > 0) || System.nanoTime() > deadline) {
        return status;
      }
    }
  }

  private static long count(String shown) {
    return Long.parseLong(shown.replace(",", ""));
  }

  private LiveService underLoad(String name) throws Exception {
    LiveService app = LiveService.startWithoutEndpoint(LiveService.app(redis).name(name));
    app.load(HOT, 600);
    app.load("cold:1", 20);
    if (!app.jvm()
        .awaitAgentLine("hot key promoted: key=\"" + HOT + "\"", Duration.ofSeconds(30))) {
      app.close();
      throw new AssertionError("never promoted:\n" + app.jvm().output());
    }
    return app;
  }

  private static Thread copy(InputStream from, ByteArrayOutputStream to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                for (int n; (n = from.read(buffer)) > 0; ) {
                  synchronized (to) {
                    to.write(buffer, 0, n);
                  }
                }
              } catch (IOException ignored) {
                // the terminal closed
              }
            },
            "top-screen");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  static Command agentCommand(String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(Jdk.JDK17.java().toString(), "-jar", ItConfig.agentJar().toString()));
    command.addAll(List.of(args));
    return run(command);
  }

  private static Command run(List<String> command) throws Exception {
    Process process = new ProcessBuilder(command).start();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread errors = copy(process.getErrorStream(), err);
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not finish in 60s");
    }
    errors.join(5000);
    return new Command(command, process.exitValue(), out, err.toString(StandardCharsets.UTF_8));
  }

  /** A tmux server of the test's own (its socket name), driven by its command line. */
  private static final class Tmux {
    private final String socket;

    Tmux(String socket) {
      this.socket = socket;
    }

    Command run(String... args) throws Exception {
      List<String> command = new java.util.ArrayList<>(List.of("tmux", "-L", socket));
      command.addAll(List.of(args));
      return StatusCommandIT.run(command);
    }

    /** The pane's text once {@code condition} holds, or when the time is up. */
    String screenWhen(java.util.function.Predicate<String> condition, Duration timeout)
        throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      String screen = run("capture-pane", "-p", "-t", "0").out;
      while (!condition.test(screen) && System.nanoTime() < deadline) {
        Thread.sleep(250);
        screen = run("capture-pane", "-p", "-t", "0").out;
      }
      return screen;
    }

    /** Whether the session ended (its only command exited) within {@code timeout}. */
    boolean awaitGone(Duration timeout) throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (run("has-session").exit == 0) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(250);
      }
      return true;
    }

    void kill() throws Exception {
      run("kill-server");
    }
  }

  /** What a command printed and how it ended. */
  static final class Command {
    final List<String> command;
    final int exit;
    final String out;
    final String err;

    Command(List<String> command, int exit, String out, String err) {
      this.command = command;
      this.exit = exit;
      this.out = out;
      this.err = err;
    }

    @Override
    public String toString() {
      return String.join(" ", command)
          + "\nexit "
          + exit
          + "\nstdout:\n"
          + out
          + "\nstderr:\n"
          + err;
    }
  }
}
