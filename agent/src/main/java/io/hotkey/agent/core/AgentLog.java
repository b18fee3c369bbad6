package io.hotkey.agent.core;

/**
 * The agent's own log: one line per event on the application's stderr, prefixed {@code [hotkey]}. A
 * logging framework is deliberately not used: the agent must not touch the application's logging
 * configuration, and it logs before any framework is initialised. Lines carry no timestamp of their
 * own: the platform that collects stderr stamps them, and a fixed prefix is easy to grep.
 */
public final class AgentLog {

  private AgentLog() {}

  public static void info(String message) {
    System.err.println("[hotkey] " + message);
  }

  public static void warn(String message) {
    info("warning: " + message);
  }

  /**
   * Renders a Redis key the way every log line and metric tag shows it: printable ASCII, the rest
   * escaped.
   */
  public static String printable(byte[] key) {
    StringBuilder text = new StringBuilder(key.length + 8);
    for (byte b : key) {
      int c = b & 0xff;
      if (c == '"' || c == '\\') {
        text.append('\\').append((char) c);
      } else if (c >= 0x20 && c < 0x7f) {
        text.append((char) c);
      } else {
        text.append("\\x")
            .append(Character.forDigit(c >> 4, 16))
            .append(Character.forDigit(c & 0xf, 16));
      }
    }
    return text.toString();
  }
}
