package io.hotkey.it;

import static io.hotkey.it.LiveService.HOT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar hotkey-agent.jar status <pid> [--json]} and {@code top <pid>} against a real JVM
 * under load, with no HTTP endpoint: attach and JMX only. {@code top} runs in a pseudo-terminal
 * ({@code script}) and is ended by Ctrl-C typed into it.
 */
class StatusCommandIT extends RedisTestBase {

  @Test
  void statusShowsAKeyPromotedByLoadWithItsRateAndTheConfiguration() throws Exception {
    try (LiveService app = underLoad("status")) {
      Command status = agentCommand("status", String.valueOf(app.jvm().pid()));
      assertEquals(0, status.exit, status::toString);
      assertTrue(
          Pattern.compile("(?m)^" + Pattern.quote(HOT) + " +[0-9,]+ +100% local ")
              .matcher(status.out)
              .find(),
          status::toString);
      assertTrue(status.out.contains("in JVM " + app.jvm().pid()), status::toString);
      assertTrue(
          status.out.contains("hotkey.detect.threshold = 200  (system property)"),
          status::toString);
      assertTrue(status.out.matches("(?s).*redis +[0-9,]+/s commands saved.*"), status::toString);

      Command json = agentCommand("status", String.valueOf(app.jvm().pid()), "--json");
      assertEquals(0, json.exit, json::toString);
      JsonObject report = JsonParser.parseString(json.out).getAsJsonObject();
      JsonElement first = report.getAsJsonArray("hotKeys").get(0);
      assertEquals(HOT, first.getAsJsonObject().get("key").getAsString(), json::toString);
      assertTrue(first.getAsJsonObject().get("rate").getAsDouble() > 300, json::toString);
      assertEquals(app.jvm().pid(), report.getAsJsonObject("agent").get("pid").getAsLong());
    }
  }

  @Test
  void topRefreshesInATerminalAndCtrlCEndsIt() throws Exception {
    try (LiveService app = underLoad("top")) {
      String top = Jdk.JDK17.java() + " -jar " + ItConfig.agentJar() + " top " + app.jvm().pid();
      Process terminal =
          new ProcessBuilder("script", "-q", "-c", top, "/dev/null")
              .redirectErrorStream(true)
              .start();
      ByteArrayOutputStream screen = new ByteArrayOutputStream();
      Thread reader = copy(terminal.getInputStream(), screen);
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (frames(screen) < 3 && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      OutputStream keyboard = terminal.getOutputStream();
      keyboard.write(3); // Ctrl-C: the terminal turns it into SIGINT for top
      keyboard.flush();
      boolean ended = terminal.waitFor(20, TimeUnit.SECONDS);
      if (!ended) {
        terminal.descendants().forEach(ProcessHandle::destroyForcibly);
        terminal.destroyForcibly();
      }
      reader.join(5000);
      String shown = screen.toString(StandardCharsets.UTF_8);
      assertTrue(frames(screen) >= 3, () -> "fewer than three refreshes:\n" + shown);
      assertTrue(shown.contains("\033[H"), "no cursor-home: not redrawn in place");
      assertTrue(
          Pattern.compile("\\n" + Pattern.quote(HOT) + " +[0-9,]+ +100% local ")
              .matcher(shown)
              .find(),
          () -> "the hot key is not on screen:\n" + shown);
      assertTrue(ended, () -> "Ctrl-C did not end top:\n" + shown);
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

  private static LiveService underLoad(String name) throws Exception {
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

  private static int frames(ByteArrayOutputStream screen) {
    String text = screen.toString(StandardCharsets.UTF_8);
    return text.split("refreshed every second", -1).length - 1;
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

  private static Command agentCommand(String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(Jdk.JDK17.java().toString(), "-jar", ItConfig.agentJar().toString()));
    command.addAll(List.of(args));
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

  /** What a command printed and how it ended. */
  private static final class Command {
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
