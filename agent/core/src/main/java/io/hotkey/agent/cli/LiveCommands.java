package io.hotkey.agent.cli;

import io.hotkey.agent.cli.AgentConnection.CliException;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code java -jar hotkey-agent.jar status <pid> [--json]} and {@code top <pid>}: the running
 * agent's hot keys, cache figures and configuration, read over the attach API and JMX.
 */
public final class LiveCommands {
  /** Usage lines; constants, so that the agent's own usage text does not load this class. */
  public static final String STATUS_USAGE =
      "  java -jar hotkey-agent.jar status <pid> [--json]   hot keys, cache and configuration, once";

  public static final String TOP_USAGE =
      "  java -jar hotkey-agent.jar top <pid>               the same, refreshed every second (Ctrl-C quits)";

  /** Rows of hot keys {@code top} shows; {@code status} shows them all. */
  private static final int TOP_KEYS = 20;

  private LiveCommands() {}

  /** Whether {@code command} is one of these. */
  public static boolean handles(String command) {
    return "status".equals(command) || "top".equals(command);
  }

  /** Runs the command; returns the process' exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    boolean json = args.length == 3 && "--json".equals(args[2]) && "status".equals(args[0]);
    if (args.length != 2 && !json) {
      err.println("usage:");
      err.println(STATUS_USAGE);
      err.println(TOP_USAGE);
      return 2;
    }
    try (AgentConnection agent = AgentConnection.open(args[1])) {
      if ("top".equals(args[0])) {
        return top(agent, out);
      }
      String report = agent.reportJson();
      if (json) {
        out.println(report);
        return 0;
      }
      ReportDocument document = ReportDocument.parse(report);
      if (!document.object("commands").hasNumber("readsPerSecond")) {
        // this read started the agent's sampler: one second more gives the per-second figures
        Thread.sleep(1100);
        document = ReportDocument.parse(agent.reportJson());
      }
      StatusView.render(document, 0, Integer.MAX_VALUE, true).forEach(out::println);
      return 0;
    } catch (CliException e) {
      err.println(e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
  }

  private static int top(AgentConnection agent, PrintStream out)
      throws CliException, InterruptedException {
    int width = columns();
    out.print("\033[2J");
    while (true) {
      List<String> lines =
          StatusView.render(ReportDocument.parse(agent.reportJson()), width, TOP_KEYS, false);
      StringBuilder screen = new StringBuilder("\033[H");
      for (String line : lines) {
        screen.append(line).append("\033[K").append(System.lineSeparator());
      }
      screen.append(System.lineSeparator()).append("refreshed every second; Ctrl-C quits\033[K");
      out.print(screen.append("\033[J"));
      out.flush();
      Thread.sleep(1000);
    }
  }

  /** The terminal's width as the shell exports it; 120 when it does not. */
  private static int columns() {
    try {
      return Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "120").trim());
    } catch (NumberFormatException e) {
      return 120;
    }
  }
}
