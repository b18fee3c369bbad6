package io.hotkey.demo.redis;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;

/**
 * Per-command call counters as Redis itself counts them ({@code INFO commandstats}), so the demo
 * can show what reached the server independently of what the application believes it sent.
 */
public final class CommandStats {

  /**
   * {@code cmdstat_get:calls=12,usec=40,...}; Redis 7 names subcommands {@code
   * cmdstat_client|list}.
   */
  private static final Pattern LINE =
      Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)", Pattern.MULTILINE);

  private final Map<String, Long> callsByCommand;

  private CommandStats(Map<String, Long> callsByCommand) {
    this.callsByCommand = callsByCommand;
  }

  public static CommandStats read(Jedis connection) {
    return parse(connection.info("commandstats"));
  }

  public static CommandStats parse(String infoReply) {
    Map<String, Long> calls = new TreeMap<>();
    Matcher line = LINE.matcher(infoReply);
    while (line.find()) {
      calls.put(line.group(1).toLowerCase(Locale.ROOT), Long.parseLong(line.group(2)));
    }
    return new CommandStats(calls);
  }

  /**
   * Calls of {@code command} (case-insensitive) since the server started or stats were reset; 0 if
   * never called.
   */
  public long calls(String command) {
    return callsByCommand.getOrDefault(command.toLowerCase(Locale.ROOT), 0L);
  }

  /** Sum of calls of the given commands between {@code earlier} and this snapshot. */
  public long callsSince(CommandStats earlier, String... commands) {
    long delta = 0;
    for (String command : commands) {
      delta += calls(command) - earlier.calls(command);
    }
    return delta;
  }
}
