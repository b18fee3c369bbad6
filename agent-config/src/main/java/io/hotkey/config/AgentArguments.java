package io.hotkey.config;

import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the {@code -javaagent:hotkey-agent.jar=k=v,k=v} argument string. */
final class AgentArguments {
  private static final String EXPECTED =
      "expected comma-separated key=value pairs, e.g. config=/etc/hotkey.properties";

  private AgentArguments() {}

  /**
   * A piece without {@code =} continues the previous value, because list values such as {@code
   * hotkey.idempotency.routes=POST /a/**,PUT /b/*} contain commas themselves. The short name {@code
   * config} stands for {@code hotkey.config}.
   *
   * @return names to values in order of appearance; a repeated name keeps its last value
   */
  static Map<String, String> parse(String agentArgs) {
    Map<String, String> pairs = new LinkedHashMap<>();
    if (agentArgs == null || agentArgs.isBlank()) {
      return pairs;
    }
    String lastName = null;
    for (String piece : agentArgs.split(",")) {
      if (piece.isBlank()) {
        // a stray or trailing comma would otherwise glue "," onto the previous value, e.g. a file
        // path
        continue;
      }
      int eq = piece.indexOf('=');
      if (eq < 0 && lastName != null) {
        pairs.put(lastName, pairs.get(lastName) + "," + piece);
      } else if (eq < 0 || piece.substring(0, eq).isBlank()) {
        throw new InvalidValueException(piece, "is not a key=value pair; " + EXPECTED);
      } else {
        String name = piece.substring(0, eq).trim();
        lastName = name.equals("config") ? ConfigKey.CONFIG.key() : name;
        pairs.put(lastName, piece.substring(eq + 1));
      }
    }
    return pairs;
  }
}
