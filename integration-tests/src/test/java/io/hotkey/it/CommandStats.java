package io.hotkey.it;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parsed {@code INFO commandstats}: calls per command (lower case, e.g. "get", "client|tracking").
 */
public final class CommandStats {
  private final Map<String, Long> calls;

  public CommandStats(Map<String, Long> calls) {
    this.calls = new TreeMap<>(calls);
  }

  public static CommandStats parse(String info) {
    Map<String, Long> m = new TreeMap<>();
    for (String line : info.split("\r?\n")) {
      line = line.trim();
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      int colon = line.indexOf(':');
      String cmd = line.substring("cmdstat_".length(), colon).toLowerCase(Locale.ROOT);
      for (String part : line.substring(colon + 1).split(",")) {
        if (part.startsWith("calls=")) {
          m.put(cmd, Long.parseLong(part.substring("calls=".length())));
        }
      }
    }
    return new CommandStats(m);
  }

  public long calls(String command) {
    return calls.getOrDefault(command.toLowerCase(Locale.ROOT), 0L);
  }

  public CommandStats minus(CommandStats earlier) {
    Map<String, Long> m = new TreeMap<>(calls);
    earlier.calls.forEach((k, v) -> m.merge(k, -v, Long::sum));
    m.values().removeIf(v -> v == 0);
    return new CommandStats(m);
  }

  public CommandStats plus(CommandStats other) {
    Map<String, Long> m = new TreeMap<>(calls);
    other.calls.forEach((k, v) -> m.merge(k, v, Long::sum));
    return new CommandStats(m);
  }

  public Map<String, Long> asMap() {
    return calls;
  }

  @Override
  public String toString() {
    return calls.toString();
  }
}
